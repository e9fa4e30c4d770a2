"""The span readers' exporter (`model_kinds.TASKS["squad"].exporter`): an
`LSTMAttentionQA` (`span_qa_graph`) or a `BiDAF` (`bidaf_graph`) as one
builtin LiteRT graph with two token inputs (context and question ids), the
start and end logits and a read mask per reading layer and direction over
the context, parity-checked against the Keras model
(`keras_skim.export.task_export`)."""

import dataclasses
import json
import os

import numpy as np

from keras_skim import contracts
from keras_skim.contracts import TensorInfo
from keras_skim.export.emitter_registry import checked_emitter
from keras_skim.export.errors import ExportError
from keras_skim.export.plan import ModelPlan, RecurrentLayerPlan
from keras_skim.export.task_export import TaskExporter
from keras_skim.export.weights import to_numpy
from keras_skim.model_kinds import TASKS, load, skim_gate
from keras_skim.models.span_qa.span_qa_answer import CONTEXT_IDS, END_LOGITS, QUESTION_IDS, START_LOGITS
from keras_skim.models.span_qa.span_qa_data import QUESTION_LENGTH

TASK = "squad"
# {class name: its graph's module}: the span readers that export (every `--model` of the task).
GRAPHS = {
    "LSTMAttentionQA": "keras_skim.models.span_qa.span_qa_graph",
    "BiDAF": "keras_skim.models.span_qa.bidaf_graph",
}
MAX_ANSWER_TOKENS = 15  # `span_qa_data.best_spans`' default: the span the runtime decodes
PARITY_CONTEXT_TOKENS = 48  # the Keras reference steps each skim cell token by token
PARITY_QUESTION_TOKENS = 12


@dataclasses.dataclass
class SpanPlan(ModelPlan):
    """A `ModelPlan` of a span reader: its attention's kernel and its two answer heads besides the layers."""

    similarity: np.ndarray = None  # [3k]: w_x, w_q, w_xq
    model_name: str = None  # its `--model` value
    model_class: str = None  # its class name (`GRAPHS`)
    highway: list = None  # a BiDAF's highway layers: [(transform kernel, bias, gate kernel, bias)]
    start: tuple = None  # (kernel [2d, 1], bias [1])
    end: tuple = None
    max_length: int = None  # the context length the reader was trained on
    default_threshold: float = None

    @property
    def skims(self):
        return any(emitter.skims for layer in self.layers for emitter in layer.emitters)

    def flop_directions(self):
        """[(emitter, input size)] of every direction of every reading layer (over the context)."""
        return [(emitter, emitter.input_dim) for layer in self.layers for emitter in layer.emitters]


def _layer_plan(reader):
    emitters = [
        checked_emitter(direction.cell, f"{reader.name}/{direction.name}")
        for direction in (reader.forward_layer, reader.backward_layer)
    ]
    return RecurrentLayerPlan(reader.name, emitters, True, merge_mode="concat", layer=reader)


def _head(dense):
    return to_numpy(dense.kernel), to_numpy(dense.bias)


def _context_length(folder):
    """The context length of the model folder's task record (None without one)."""
    from keras_skim.cli.task_args import TASK_RECORD

    path = os.path.join(folder, TASK_RECORD) if folder else None
    if not path or not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f).get("context_length")


def _checked_class(model):
    """The `--model` value of an exportable span reader; ExportError (one line) for another."""
    name = type(model).__name__
    if name not in GRAPHS:
        raise ExportError(f"{name} models do not export: the span readers that export are {', '.join(GRAPHS)}")
    return next(key for key, path in TASKS[TASK].models.items() if path.endswith(f":{name}"))


def _highway(model):
    pairs = zip(getattr(model, "highway_transforms", ()), getattr(model, "highway_gates", ()))
    return [(*_head(transform), *_head(gate)) for transform, gate in pairs]


def plan_span_reader(model, folder=None):
    """The `SpanPlan` of an `LSTMAttentionQA` or a `BiDAF`; ExportError (one line) for another model."""
    model_name = _checked_class(model)
    layers = [_layer_plan(reader) for reader in model.readers]
    thresholds = {e.default_threshold for layer in layers for e in layer.emitters if e.skims}
    if len(thresholds) > 1:
        raise ExportError("the reading layers have different thresholds; set one with keras_skim.set_threshold")
    first = next((e for layer in layers for e in layer.emitters if e.skims), layers[0].emitters[0])
    start = _head(model.start_dense)
    return SpanPlan(
        embedding=to_numpy(model.embedding.embeddings),
        emitter=first,
        rnn_layer_name=layers[0].name,
        head=[(start[0], start[1], "linear")],
        output_activation="linear",
        padding_id=contracts.PADDING_ID,
        embedding_layer=model.embedding,
        layers=layers,
        similarity=to_numpy(model.similarity.kernel)[:, 0],
        start=start,
        end=_head(model.end_dense),
        max_length=_context_length(folder),
        default_threshold=thresholds.pop() if thresholds else None,
        model_name=model_name,
        model_class=type(model).__name__,
        highway=_highway(model),
    )


def span_reference(model, plan):
    """callable(inputs) -> the Keras reader's start and end logits and every
    layer's read masks (each skim cell stepped over the sequence that reaches
    its layer, padding skipped as its mask skips it; a plain cell reads
    every real token)."""
    import tensorflow as tf

    from keras_skim.export.parity import record_decisions

    gate = skim_gate()
    names = {(index, direction): name for index, direction, name in plan.read_mask_outputs()}

    spec = tf.TensorSpec([1, None], tf.int32)

    @tf.function(input_signature=[spec, spec], reduce_retracing=True)
    def traced(context, question):
        seen = []
        start, end, _ = model.read((context, question), training=False, seen=seen)
        found = {START_LOGITS: start, END_LOGITS: end}
        real = tf.cast(tf.not_equal(context, 0), tf.int32)
        for index, (layer, features) in enumerate(zip(plan.layers, seen)):
            reader = layer.layer
            for direction, rnn in zip(layer.directions, (reader.forward_layer, reader.backward_layer)):
                if not gate.is_gated(rnn.cell):
                    found[names[(index, direction)]] = real
                    continue
                decisions = record_decisions(
                    rnn.cell, features, context, 0, backward=direction == "backward", read_decision=gate.read_decision
                )
                found[names[(index, direction)]] = tf.cast(tf.round(decisions), tf.int32)[None]
        found[contracts.OUTPUT_READ_COUNT] = tf.reduce_sum(found[contracts.OUTPUT_READ_MASK], axis=1)
        return found

    def reference(inputs):
        found = traced(tf.constant(inputs[CONTEXT_IDS]), tf.constant(inputs[QUESTION_IDS]))
        return {name: np.asarray(value) for name, value in found.items()}

    return reference


def span_parity_inputs(plan, count):
    """Random contexts (some with padding inside and at the end) and questions, ids in [1, V)."""
    from keras_skim.export.parity import sample_sequences

    contexts = sample_sequences(plan.vocabulary_size, count, padding_id=contracts.PADDING_ID)
    questions = sample_sequences(plan.vocabulary_size, count, seed=1)
    return [
        {
            CONTEXT_IDS: context[:PARITY_CONTEXT_TOKENS][None].astype(np.int32),
            QUESTION_IDS: question[:PARITY_QUESTION_TOKENS][None].astype(np.int32),
        }
        for context, question in zip(contexts, questions)
    ]


def span_metadata(plan, facts):
    """The `ExportMetadata` of a span export: the stack's layers and FLOPs, its two inputs and its outputs."""
    from keras_skim.export.metadata import _inputs, _outputs, build_metadata

    metadata = build_metadata(plan, facts)
    ids_note = f"token ids of the {{}}, id 0 = padding, ids < vocabulary_size ({plan.vocabulary_size})"
    inputs = {
        CONTEXT_IDS: TensorInfo([1, -1], "int32", note=ids_note.format("context")),
        QUESTION_IDS: TensorInfo([1, -1], "int32", note=ids_note.format("question")),
    }
    inputs.update({k: v for k, v in _inputs(plan, facts.default_threshold).items() if k != contracts.INPUT_TOKEN_IDS})
    logits_note = "per context token, before the softmax over the context (padding at -1e9)"
    outputs = {
        name: TensorInfo([1, -1], "float32", note=f"{name}: {logits_note}") for name in (START_LOGITS, END_LOGITS)
    }
    outputs.update({k: v for k, v in _outputs(plan).items() if k != contracts.OUTPUT_LOGITS})
    metadata.inputs, metadata.outputs = inputs, outputs
    metadata.task = {
        "name": TASK,
        "model": plan.model_name,
        "context_length": plan.max_length,
        "question_length": QUESTION_LENGTH,
        "max_answer_tokens": MAX_ANSWER_TOKENS,
        "input_lengths": {CONTEXT_IDS: plan.max_length, QUESTION_IDS: QUESTION_LENGTH},
    }
    return metadata


class SpanReaderExporter(TaskExporter):
    def plan(self, model, folder):
        return plan_span_reader(model, folder)

    def build_module(self, plan):
        return load(GRAPHS[plan.model_class]).build_module(plan)

    def parity_inputs(self, plan, count):
        return span_parity_inputs(plan, count)

    def keras_reference(self, model, plan):
        return span_reference(model, plan)

    def metadata(self, plan, facts):
        return span_metadata(plan, facts)


EXPORTER = SpanReaderExporter()
