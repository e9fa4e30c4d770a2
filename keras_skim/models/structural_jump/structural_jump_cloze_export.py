"""The Structural-Jump cloze reader's exporter (`model_kinds.TASKS["cloze"]`,
`--model sj-lstm`): a `StructuralJumpClozeQA` as one builtin LiteRT graph
with three token inputs (the document's raw ids, the query's raw ids and the
candidates' ids), the candidates' scores and the document's per-token codes,
parity-checked against the Keras model (`keras_skim.export.task_export`).

The graph reads the query in full (the family's loop with the agents held to
READ / NEXT_WORD, as `read_words(read_all=True)` holds them), then the
document from that state with the agents acting (`structural_jump_graph`,
the loop that advances by the jump), and scores each candidate as the model
does: `s_k = e(c_k) . (W h)`. The read mask and counts are the document's,
as the model's trace and reading fractions are.
"""

import dataclasses
import json
import os

import numpy as np

from keras_skim import contracts
from keras_skim.contracts import TensorInfo
from keras_skim.datasets.cloze_splits import CANDIDATE_IDS, add_candidate_entries
from keras_skim.export.errors import ExportError
from keras_skim.export.plan import ModelPlan
from keras_skim.export.task_export import TaskExporter
from keras_skim.export.weights import f32, to_numpy
from keras_skim.models.structural_jump.structural_jump_cloze_answer import MODEL, QUERY_IDS

TASK = "cloze"


@dataclasses.dataclass
class StructuralJumpClozePlan(ModelPlan):
    """A Structural-Jump `ModelPlan` whose head is the answer projection W (no bias), with the question's sizes."""

    num_candidates: int = None
    query_length: int = None  # query tokens read (the model's query columns)
    max_length: int = None  # document tokens kept in training
    default_threshold: float = None  # the agents decide: no threshold

    @property
    def skims(self):
        return False


def _max_length(folder):
    """The document tokens kept in training, from the model folder's training config (None without one)."""
    from keras_skim.models.structural_jump.structural_jump_cloze_training import CONFIG_FILE

    path = os.path.join(folder, CONFIG_FILE) if folder else None
    if not path or not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        return (json.load(f).get("config") or {}).get("max_length")


def plan_structural_jump_cloze(model, folder=None):
    """The `StructuralJumpClozePlan` of a `StructuralJumpClozeQA` (a one-line ExportError otherwise)."""
    from keras_skim.models.structural_jump.structural_jump_cloze_qa import StructuralJumpClozeQA
    from keras_skim.models.structural_jump.structural_jump_emitter import plan_structural_jump_reader

    if not isinstance(model, StructuralJumpClozeQA):
        raise ExportError(f"a {type(model).__name__} is not a StructuralJumpClozeQA (--task cloze --model {MODEL})")
    reader = {
        field.name: getattr(plan_structural_jump_reader(model), field.name) for field in dataclasses.fields(ModelPlan)
    }
    projection = to_numpy(model.answer_projection.kernel)
    return StructuralJumpClozePlan(
        **{**reader, "head": [(projection, np.zeros(projection.shape[1]), "linear")]},
        num_candidates=int(model.num_candidates),
        query_length=int(model.query_length),  # the columns the model packs the query into
        max_length=_max_length(folder),
    )


def build_module(plan):
    """A tf.Module whose `serve(token_ids, query_ids, candidate_ids)` reads the query, then the document."""
    import tensorflow as tf

    from keras_skim.models.structural_jump.structural_jump_graph import read_outputs, text_reader

    read_query = text_reader(tf, plan, speed_reading=False)
    read_document = text_reader(tf, plan)
    zeros = tf.constant(np.zeros((1, plan.emitter.units), np.float32))
    (projection, _, _) = plan.head[0]
    inputs = [
        tf.TensorSpec([1, None], tf.int32, name=contracts.INPUT_TOKEN_IDS),
        tf.TensorSpec([1, None], tf.int32, name=QUERY_IDS),
        tf.TensorSpec([1, plan.num_candidates], tf.int32, name=CANDIDATE_IDS),
    ]

    @tf.function(input_signature=inputs)
    def serve(token_ids, query_ids, candidate_ids):
        # The model packs the query into its first `query_length` columns: only those are read.
        h, c, _, _, _ = read_query(tf.reshape(query_ids, [-1])[: plan.query_length], zeros, zeros)
        h, _, record, positions, is_word = read_document(tf.reshape(token_ids, [-1]), h, c)
        projected = tf.matmul(h, tf.constant(f32(projection)))
        candidates = tf.gather(tf.constant(f32(plan.embedding)), tf.reshape(candidate_ids, [-1]))
        logits = tf.matmul(projected, candidates, transpose_b=True)
        return {contracts.OUTPUT_LOGITS: logits, **read_outputs(tf, record, positions, is_word)}

    module = tf.Module()
    module.serve = serve
    return module


def packed_question(plan, inputs):
    """The `pack_cloze_ids` row [1, K + Q + D] of one export's inputs: the query cut or padded to the model's
    query columns, as training packs it."""
    from keras_skim.models.structural_jump.structural_jump_cloze_qa import pack_cloze_ids

    query = np.zeros((1, plan.query_length), np.int32)
    given = np.asarray(inputs[QUERY_IDS], np.int32).reshape(-1)[: plan.query_length]
    query[0, : len(given)] = given
    return pack_cloze_ids(inputs[CANDIDATE_IDS], query, inputs[contracts.INPUT_TOKEN_IDS])


def structural_jump_cloze_reference(model, plan):
    """callable(inputs) -> the Keras reader's scores, document codes and counts (greedy, `training=False`)."""
    import tensorflow as tf

    from keras_skim.contracts import TOKEN_READ, TOKEN_SKIMMED
    from keras_skim.models.structural_jump.structural_jump_parity import token_codes

    @tf.function(input_signature=[tf.TensorSpec([1, None], tf.int32)] * 2, reduce_retracing=True)
    def run(packed, document):
        out = model(packed, training=False)
        _, _, positions = model.text_structure(document)
        return out["logits"], out["trace"], out["word_count"], positions

    def reference(inputs):
        document = np.asarray(inputs[contracts.INPUT_TOKEN_IDS], np.int32)
        found = run(tf.constant(packed_question(plan, inputs)), tf.constant(document))
        logits, trace, word_count, positions = (np.asarray(value) for value in found)
        codes = token_codes(trace[0], word_count[0], positions[0], document.shape[1])
        return {
            contracts.OUTPUT_LOGITS: logits,
            contracts.OUTPUT_READ_MASK: codes[None],
            contracts.OUTPUT_READ_COUNT: np.asarray([np.sum(codes == TOKEN_READ)], np.int32),
            # a jumped word is neither read nor visited
            contracts.OUTPUT_VISITED_COUNT: np.asarray([np.sum(np.isin(codes, (TOKEN_READ, TOKEN_SKIMMED)))], np.int32),
        }

    return reference


def structural_jump_cloze_parity_inputs(plan, count):
    """Random documents and queries (punctuation among them, so that the jumps land; padding inside and at
    the end of some) and candidates, ids in [1, V)."""
    from keras_skim.export.parity import sample_sequences

    punctuation = [i for ids in plan.structure.values() for i in ids]
    documents = sample_sequences(
        plan.vocabulary_size, count, padding_id=contracts.PADDING_ID, punctuation_ids=punctuation
    )
    queries = sample_sequences(plan.vocabulary_size, count, seed=1, punctuation_ids=punctuation)
    rng = np.random.default_rng(2)
    return [
        {
            contracts.INPUT_TOKEN_IDS: document[None].astype(np.int32),
            QUERY_IDS: query[None].astype(np.int32),
            CANDIDATE_IDS: rng.integers(1, plan.vocabulary_size, (1, plan.num_candidates)).astype(np.int32),
        }
        for document, query in zip(documents, queries)
    ]


def structural_jump_cloze_metadata(plan, facts):
    """The `ExportMetadata`: a Structural-Jump export's, with the query and candidates' inputs and scores."""
    from keras_skim.export.metadata import build_metadata

    metadata = build_metadata(plan, facts)
    metadata.inputs[contracts.INPUT_TOKEN_IDS].note = (
        "the document's " + metadata.inputs[contracts.INPUT_TOKEN_IDS].note
    )
    metadata.inputs[QUERY_IDS] = TensorInfo(
        [1, plan.query_length],
        "int32",
        note="the query's raw tokenizer ids, read in full before the document; the first query_length kept",
    )
    add_candidate_entries(metadata, plan.num_candidates)
    for name in (contracts.OUTPUT_READ_MASK, contracts.OUTPUT_READ_COUNT, contracts.OUTPUT_VISITED_COUNT):
        metadata.outputs[name].note = "the document's: " + metadata.outputs[name].note
    metadata.task = {
        "name": TASK,
        "model": MODEL,
        "max_length": plan.max_length,
        "query_length": plan.query_length,
        "num_candidates": plan.num_candidates,
        "input_lengths": {
            contracts.INPUT_TOKEN_IDS: plan.max_length,
            QUERY_IDS: plan.query_length,
            CANDIDATE_IDS: plan.num_candidates,
        },
    }
    return metadata


class StructuralJumpClozeExporter(TaskExporter):
    def plan(self, model, folder):
        return plan_structural_jump_cloze(model, folder)

    def build_module(self, plan):
        return build_module(plan)

    def parity_inputs(self, plan, count):
        return structural_jump_cloze_parity_inputs(plan, count)

    def keras_reference(self, model, plan):
        return structural_jump_cloze_reference(model, plan)

    def metadata(self, plan, facts):
        return structural_jump_cloze_metadata(plan, facts)


EXPORTER = StructuralJumpClozeExporter()
