"""A Structural-Jump-LSTM model in exporter terms: its plan and its weights
folded for a loop that visits only the words it does not jump over.

`keras_skim.StructuralJumpLSTM` is a subclassed `keras.Model` (raw ids ->
`TextStructure` -> Embedding -> RNN(StructuralJumpLSTMCell) -> Dense relu
-> Dense logits). It is recognised by its layers, not by importing
`keras_skim.training` (export never imports training): a `TextStructure`
layer, an Embedding, one RNN whose cell is a `StructuralJumpLSTMCell`, and
the two Dense layers of the head.

Inference follows the paper's loop (Hansen et al. 2019; the cell's greedy
pass): at a visited word the skip agent decides skip or read; a read word
runs the LSTM step and the jump agent, whose action says where the next
visited word is. The inputs the agents and the LSTM see are folded here:

* the previous actions enter as one of 5 states `p` (0: the word before
  was skipped, so the previous actions are SKIP / NEXT_WORD; 1 + a: it was
  read and jump action a followed; the first word sees p = 1), so their
  one-hot terms and the biases become a [5, k] table per use;
* the skip agent's word term `E @ W_s[x rows]` is a [V, agent_units]
  table: a skipped word costs one row lookup and the h term (m x a);
* the LSTM's word term `x @ W[x rows]` is computed for read words only
  (or folded into a [V, 4 m] table when asked: `fold=True`);
* the skip decision needs only the difference of its two logits (read
  iff l_read - l_skip > 0: a tie skips, as the cell's comparison does).
"""

import numpy as np

from keras_skim.contracts import CUSTOM_OPS, PADDING_ID
from keras_skim.export.errors import ExportError
from keras_skim.export.plan import ModelPlan
from keras_skim.export.weights import activation_name, to_numpy

MODEL_KIND = "structural_jump_lstm"
OP_NAME = CUSTOM_OPS[MODEL_KIND]
MODEL_CLASS = "StructuralJumpLSTM"
CELL_CLASS = "StructuralJumpLSTMCell"
NUM_PREVIOUS = 5  # previous-action states p: after a skip, or after a read and jump 0..3
FIRST_PREVIOUS = 1  # the first word: previous actions READ / NEXT_WORD, as in the cell
NUM_JUMPS = 4
# Kinds of raw tokens in the op's per-id table (and in the graph).
KIND_WORD, KIND_SEPARATOR, KIND_SENTENCE_END, KIND_OTHER, KIND_PADDING = 0, 1, 2, 3, 4


def previous_one_hots():
    """[5, 6]: the cell's previous-action one-hots [skip (2) | jump (4)] of each state p."""
    table = np.zeros((NUM_PREVIOUS, 6))
    table[0, 0] = table[0, 2] = 1.0  # SKIP, NEXT_WORD
    for a in range(NUM_JUMPS):
        table[1 + a, 1] = table[1 + a, 2 + a] = 1.0  # READ, jump a
    return table


def _layer_kinds(model):
    return [type(layer).__name__ for layer in getattr(model, "layers", [])]


def is_structural_jump(model):
    """Whether `model` is (or claims to be) a Structural-Jump-LSTM model."""
    if type(model).__name__ == MODEL_CLASS or "TextStructure" in _layer_kinds(model):
        return True
    cell = getattr(getattr(model, "rnn", None), "cell", None)
    return type(cell).__name__ == CELL_CLASS


class StructuralJumpEmitter:
    """The weights of a Structural-Jump-LSTM model, folded for export.

    Attributes (float64 NumPy arrays unless said):
        units (m), agent_units (a), embedding_dim (d), vocabulary_size (V);
        speed_reading: bool, whether the agents act (False: every word is
            read, never jumped, as in full-read pretraining);
        skip_rows [V, a]: E @ W_s[x rows];
        skip_previous [5, a]: the previous-action terms + b_s;
        skip_recurrent [m, a]: W_s[h rows];
        skip_head [a], skip_head_bias: l_read - l_skip from the agent's state;
        lstm_input [d, 4m], lstm_recurrent [m, 4m], lstm_previous [5, 4m]
            (previous-action terms + b), in Keras' gate order (i, f, c, o);
        jump_kernel [m, a], jump_bias [a], jump_head [a, 4], jump_head_bias [4];
        kinds: int8 [V], each id's kind (KIND_*).
    """

    model_kind = MODEL_KIND
    flop_kind = "lstm"
    skims = False  # no read threshold: the agents decide
    jumps = True

    def __init__(self, model):
        cell = model.rnn.cell
        if activation_name(cell.activation) != "tanh" or activation_name(cell.recurrent_activation) != "sigmoid":
            raise ExportError(
                f"cell {cell.name!r} uses activations "
                f"{(activation_name(cell.activation), activation_name(cell.recurrent_activation))}; "
                "the exporter supports ('tanh', 'sigmoid')"
            )
        self.cell = cell
        self.units = m = int(cell.units)
        self.small_units = 0
        self.agent_units = int(cell.agent_units)
        self.default_threshold = None
        self.speed_reading = bool(cell.speed_reading)
        embedding = to_numpy(model.embedding.embeddings)
        self.vocabulary_size, d = embedding.shape
        self.embedding_dim = self.input_dim = int(d)
        self.embedding = embedding
        previous = previous_one_hots()

        kernel = to_numpy(cell.lstm.kernel)
        if kernel.shape[0] != d + 6:
            raise ExportError(f"cell {cell.name!r} takes inputs of size {kernel.shape[0] - 6}, the embedding {d}")
        bias = to_numpy(cell.lstm.bias) if cell.lstm.use_bias else np.zeros(4 * m)
        self.lstm_input = kernel[:d]
        self.lstm_previous = previous @ kernel[d:] + bias
        self.lstm_recurrent = to_numpy(cell.lstm.recurrent_kernel)

        skip = to_numpy(cell.skip_hidden.kernel)  # rows [h (m) | x (d) | previous (6)]
        self.skip_recurrent = skip[:m]
        self.skip_rows = embedding @ skip[m : m + d]
        self.skip_previous = previous @ skip[m + d :] + to_numpy(cell.skip_hidden.bias)
        policy, policy_bias = to_numpy(cell.skip_policy.kernel), to_numpy(cell.skip_policy.bias)
        self.skip_head = policy[:, 1] - policy[:, 0]
        self.skip_head_bias = float(policy_bias[1] - policy_bias[0])

        self.jump_kernel = to_numpy(cell.jump_hidden.kernel)
        self.jump_bias = to_numpy(cell.jump_hidden.bias)
        self.jump_head = to_numpy(cell.jump_policy.kernel)
        self.jump_head_bias = to_numpy(cell.jump_policy.bias)

        structure = model.text_structure
        self.separator_ids = list(structure.separator_ids)
        self.sentence_end_ids = list(structure.sentence_end_ids)
        self.other_punctuation_ids = list(structure.other_punctuation_ids)
        kinds = np.full((self.vocabulary_size,), KIND_WORD, np.int8)
        for ids, kind in (
            (self.separator_ids, KIND_SEPARATOR),
            (self.sentence_end_ids, KIND_SENTENCE_END),
            (self.other_punctuation_ids, KIND_OTHER),
        ):
            kinds[[i for i in ids if i < self.vocabulary_size]] = kind
        kinds[PADDING_ID] = KIND_PADDING
        self.kinds = kinds

    def check(self):
        """Nothing beyond the constructor's checks."""

    def punctuation(self):
        return {
            "separator_ids": list(self.separator_ids),
            "sentence_end_ids": list(self.sentence_end_ids),
            "other_punctuation_ids": list(self.other_punctuation_ids),
        }


def plan_structural_jump(model):
    """The `ModelPlan` of a Structural-Jump-LSTM model, or a one-line ExportError."""
    import dataclasses

    import keras

    reader = plan_structural_jump_reader(model)
    name = getattr(model, "name", type(model).__name__)
    head = []
    for layer_name in ("hidden", "classifier"):
        layer = getattr(model, layer_name, None)
        if not isinstance(layer, keras.layers.Dense):
            raise ExportError(f"model {name!r} has no Dense {layer_name!r} layer (the paper's head)")
        kernel = to_numpy(layer.kernel)
        bias = to_numpy(layer.bias) if layer.use_bias else np.zeros(kernel.shape[1])
        head.append((kernel, bias, activation_name(layer.activation)))
    if head[0][2] not in ("relu", "linear"):
        raise ExportError(f"unsupported hidden Dense activation {head[0][2]!r} (expected relu or linear)")
    if head[1][2] != "linear":
        raise ExportError(f"the {MODEL_CLASS} logits layer must be linear; got {head[1][2]!r}")
    return dataclasses.replace(reader, head=head)


def plan_structural_jump_reader(model):
    """The `ModelPlan` of a Structural-Jump-LSTM model's reader (its text structure, embedding and cell;
    no head yet), or a one-line ExportError."""
    import keras

    name = getattr(model, "name", type(model).__name__)
    structure = getattr(model, "text_structure", None)
    embedding = getattr(model, "embedding", None)
    rnn = getattr(model, "rnn", None)
    cell = getattr(rnn, "cell", None)
    if type(structure).__name__ != "TextStructure" or not isinstance(embedding, keras.layers.Embedding):
        raise ExportError(
            f"model {name!r} is not a complete Structural-Jump-LSTM model (expected a keras_skim."
            f"{MODEL_CLASS}: TextStructure -> Embedding -> RNN({CELL_CLASS}) -> Dense -> Dense)"
        )
    if type(cell).__name__ != CELL_CLASS:
        raise ExportError(
            f"model {name!r} has no skip and jump agents (its recurrent cell is "
            f"{type(cell).__name__}, expected {CELL_CLASS})"
        )
    missing = [
        part
        for part in ("skip_hidden", "skip_policy", "jump_hidden", "jump_policy", "lstm")
        if not getattr(getattr(cell, part, None), "built", False)
    ]
    if missing:
        raise ExportError(f"model {name!r} has no built {', '.join(missing)} in its {CELL_CLASS}")
    emitter = StructuralJumpEmitter(model)
    return ModelPlan(
        emitter.embedding,
        emitter,
        rnn.name,
        [],
        "softmax",
        PADDING_ID,
        embedding,
        rnn,
        structure=emitter.punctuation(),
    )
