"""The cloze reader's exporter (`model_kinds.TASKS["cloze"].exporter`): a
`ClozeQA` as one builtin LiteRT graph (`cloze_graph`) with two token inputs
(the query's then the document's ids, and the candidates' ids), the
candidates' scores and the reader's read mask, parity-checked against the
Keras model (`keras_skim.export.task_export`)."""

import dataclasses
import json
import os

import numpy as np

from keras_skim import contracts
from keras_skim.datasets.cloze_splits import CANDIDATE_IDS, add_candidate_entries
from keras_skim.export.emitter_registry import checked_emitter
from keras_skim.export.errors import ExportError
from keras_skim.export.plan import ModelPlan, RecurrentLayerPlan
from keras_skim.export.task_export import TaskExporter
from keras_skim.export.weights import to_numpy
from keras_skim.model_kinds import skim_gate

TASK = "cloze"


@dataclasses.dataclass
class ClozePlan(ModelPlan):
    """A `ModelPlan` of a cloze reader: one forward layer, `head` its answer projection W (no bias)."""

    num_candidates: int = None
    max_length: int = None  # tokens read per question in training
    default_threshold: float = None

    @property
    def skims(self):
        return self.emitter.skims


def _max_length(folder):
    """The tokens per question of the model folder's training config (None without one)."""
    from keras_skim.models.cloze_qa.cloze_training import CONFIG_FILE

    path = os.path.join(folder, CONFIG_FILE) if folder else None
    if not path or not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        return (json.load(f).get("config") or {}).get("max_length")


def plan_cloze_reader(model, folder=None):
    """The `ClozePlan` of a `ClozeQA`."""
    from keras_skim.models.cloze_qa.cloze_qa import ClozeQA

    if not isinstance(model, ClozeQA):  # the task's other readers have their own exporters (`model_exporters`)
        raise ExportError(f"a {type(model).__name__} is not a ClozeQA (--task cloze --model cloze)")
    reader, embedding = model.get_layer("reader"), model.get_layer("embedding")
    emitter = checked_emitter(reader.cell, reader.name)
    projection = to_numpy(model.get_layer("answer_projection").kernel)
    return ClozePlan(
        embedding=to_numpy(embedding.embeddings),
        emitter=emitter,
        rnn_layer_name=reader.name,
        head=[(projection, np.zeros(projection.shape[1]), "linear")],
        output_activation="softmax",
        padding_id=contracts.PADDING_ID,
        embedding_layer=embedding,
        rnn_layer=reader,
        layers=[RecurrentLayerPlan(reader.name, [emitter], False, layer=reader)],
        num_candidates=int(model.num_candidates),
        max_length=_max_length(folder),
        default_threshold=emitter.default_threshold,
    )


def cloze_reference(model, plan):
    """callable(inputs) -> the Keras reader's scores and read mask (its skim
    cell stepped over the embedded tokens, padding skipped; a plain cell reads
    every real token)."""
    import tensorflow as tf

    from keras_skim.export.parity import record_decisions

    gate = skim_gate()
    cell = plan.rnn_layer.cell
    gated = gate.is_gated(cell)
    embeddings = plan.embedding_layer.embeddings

    @tf.function(
        input_signature=[tf.TensorSpec([1, None], tf.int32), tf.TensorSpec([1, plan.num_candidates], tf.int32)],
        reduce_retracing=True,
    )
    def traced(ids, candidates):
        scores = model({"tokens": ids, "candidates": candidates}, training=False)
        if gated:
            decisions = record_decisions(
                cell, tf.gather(embeddings, ids), ids, contracts.PADDING_ID, read_decision=gate.read_decision
            )
            mask = tf.cast(tf.round(decisions), tf.int32)[None]
        else:
            mask = tf.cast(tf.not_equal(ids, contracts.PADDING_ID), tf.int32)
        return {
            contracts.OUTPUT_LOGITS: scores,
            contracts.OUTPUT_READ_MASK: mask,
            contracts.OUTPUT_READ_COUNT: tf.reduce_sum(mask, axis=1),
        }

    def reference(inputs):
        found = traced(tf.constant(inputs[contracts.INPUT_TOKEN_IDS]), tf.constant(inputs[CANDIDATE_IDS]))
        return {name: np.asarray(value) for name, value in found.items()}

    return reference


def cloze_parity_inputs(plan, count):
    """Random questions (some with padding inside and at the end) and candidates, ids in [1, V)."""
    from keras_skim.export.parity import sample_sequences

    rng = np.random.default_rng(2)
    return [
        {
            contracts.INPUT_TOKEN_IDS: ids[None].astype(np.int32),
            CANDIDATE_IDS: rng.integers(1, plan.vocabulary_size, (1, plan.num_candidates)).astype(np.int32),
        }
        for ids in sample_sequences(plan.vocabulary_size, count, padding_id=contracts.PADDING_ID)
    ]


def cloze_metadata(plan, facts):
    """The `ExportMetadata` of a cloze export: a single-layer export's, with the candidates' input and scores."""
    from keras_skim.export.metadata import build_metadata

    metadata = build_metadata(plan, facts)
    metadata.inputs[contracts.INPUT_TOKEN_IDS].note = "the query's token ids, then the document's; " + (
        metadata.inputs[contracts.INPUT_TOKEN_IDS].note
    )
    add_candidate_entries(metadata, plan.num_candidates)
    metadata.task = {
        "name": TASK,
        "max_length": plan.max_length,
        "num_candidates": plan.num_candidates,
        "input_lengths": {contracts.INPUT_TOKEN_IDS: plan.max_length, CANDIDATE_IDS: plan.num_candidates},
    }
    return metadata


class ClozeReaderExporter(TaskExporter):
    def plan(self, model, folder):
        return plan_cloze_reader(model, folder)

    def build_module(self, plan):
        from keras_skim.models.cloze_qa.cloze_graph import build_module

        return build_module(plan)

    def parity_inputs(self, plan, count):
        return cloze_parity_inputs(plan, count)

    def keras_reference(self, model, plan):
        return cloze_reference(model, plan)

    def metadata(self, plan, facts):
        return cloze_metadata(plan, facts)


EXPORTER = ClozeReaderExporter()
