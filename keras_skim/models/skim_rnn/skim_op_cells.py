"""The skim cells the custom-op backend writes as one op each
(`contracts.CUSTOM_OPS`): `SkimLSTMCell` as `KerasSkimLSTM`, `SkimGRUCell`
as `KerasSkimGRU`.

Both ops take the same weight inputs (keras_skim/litert_ops/kernels/skim_rnn_op.h)
with G gate blocks per cell (LSTM 4: i, f, c, o; GRU 3: z, r, h). Here the
cell's emitter (the `ModelPlan`'s reading of its Keras weights) becomes
those inputs' float64 parts (`read_weights`: W, U, b and the small cell's
Ws, Us, bs; the GRU's candidate recurrent biases `bhh`, `bhhs`), and one
step of the cell is written in NumPy for the backend's reference (`step`),
from the input terms z_x = x W + b and the recurrent terms z_h = h U of its
n units.
"""

import dataclasses

import numpy as np

from keras_skim.contracts import CUSTOM_OPS
from keras_skim.export.numpy_cell_steps import gru_step, lstm_step
from keras_skim.export.weights import reorder_lstm_gates


def lstm_weights(emitter):
    """The op's LSTM weights in Keras' gate order (i, f, c, o): the emitter
    holds them as (i, f, o, c), and swapping the last two blocks is its own
    inverse."""
    d, ds = emitter.units, emitter.small_units
    w = {
        "W": reorder_lstm_gates(emitter.kernel, d),
        "U": reorder_lstm_gates(emitter.recurrent, d),
        "b": reorder_lstm_gates(emitter.bias, d),
    }
    if ds:
        w["Ws"] = reorder_lstm_gates(emitter.small_kernel, ds)
        w["Us"] = reorder_lstm_gates(emitter.small_recurrent, ds)
        w["bs"] = reorder_lstm_gates(emitter.small_input_bias, ds)
    return w


def gru_weights(emitter):
    """A GRU's biases, split as the op takes them: [b_z | b_r | b_xh] with
    Keras' input and recurrent biases of z and r summed, and b_hh apart
    (r scales it)."""
    w = {}
    for prefix, size, suffix in (("", emitter.units, ""), ("small_", emitter.small_units, "s")):
        if not size:
            continue
        b_input = getattr(emitter, f"{prefix}input_bias")
        b_recurrent = getattr(emitter, f"{prefix}recurrent_bias")
        w["W" + suffix] = getattr(emitter, f"{prefix}kernel")
        w["U" + suffix] = getattr(emitter, f"{prefix}recurrent")
        w["b" + suffix] = np.concatenate([b_input[: 2 * size] + b_recurrent[: 2 * size], b_input[2 * size :]])
        w["bhh" + suffix] = b_recurrent[2 * size :]
    return w


@dataclasses.dataclass(frozen=True)
class SkimOpCell:
    """One skim cell's op: its model kind, Keras class, gate blocks, weight
    reader (emitter -> dict of float64 arrays) and NumPy step."""

    kind: str
    cell_class: str
    blocks: int
    read_weights: object
    step: object

    @property
    def op_name(self):
        return CUSTOM_OPS[self.kind]

    @property
    def has_recurrent_bias(self):
        """Whether the op takes a `recurrent_bias` input (the GRU's b_hh)."""
        return self.kind == "skim_gru"


# By model kind (`ModelPlan.model_kind`).
CELLS = {
    "skim_lstm": SkimOpCell("skim_lstm", "SkimLSTMCell", 4, lstm_weights, lstm_step),
    "skim_gru": SkimOpCell("skim_gru", "SkimGRUCell", 3, gru_weights, gru_step),
}
