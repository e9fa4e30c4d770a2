"""The skim cells the custom-op backend writes as one op each
(`contracts.CUSTOM_OPS`): `SkimLSTMCell` as `KerasSkimLSTM`, `SkimGRUCell`
as `KerasSkimGRU`.

Both ops take the same weight inputs (keras_skim/litert_ops/kernels/skim_rnn_op.h)
with G gate blocks per cell (LSTM 4: i, f, c, o; GRU 3: z, r, h). Here a
cell's Keras weights become those inputs' float64 parts (`read_weights`:
W, U, b and the small cell's Ws, Us, bs; the GRU's candidate recurrent
biases `bhh`, `bhhs`), and one step of the cell is written in NumPy for the
backend's reference (`step`), from the input terms z_x = x W + b and the
recurrent terms z_h = h U of its n units.
"""

import dataclasses

import numpy as np

from keras_skim.contracts import CUSTOM_OPS


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def lstm_step(h, c, z_x, z_h, n, bhh):
    """Keras' LSTM update of units [0, n) (gates i, f, c, o); `bhh` unused."""
    i, f, g, o = np.split(z_x + z_h, 4)
    c, h = c.copy(), h.copy()
    c[:n] = _sigmoid(f) * c[:n] + _sigmoid(i) * np.tanh(g)
    h[:n] = _sigmoid(o) * np.tanh(c[:n])
    return h, c


def gru_step(h, c, z_x, z_h, n, bhh):
    """Keras' GRU update (reset_after=True) of units [0, n) (gates z, r, h):
    h' = z h + (1 - z) tanh(x W_h + b_xh + r (h U_h + b_hh)); `c` unused."""
    z = _sigmoid(z_x[:n] + z_h[:n])
    r = _sigmoid(z_x[n : 2 * n] + z_h[n : 2 * n])
    candidate = np.tanh(z_x[2 * n :] + r * (z_h[2 * n :] + bhh))
    h = h.copy()
    h[:n] = z * h[:n] + (1.0 - z) * candidate
    return h, c


def _as_float64(variable):
    import keras

    return np.asarray(keras.ops.convert_to_numpy(variable), np.float64)


def lstm_weights(cell):
    d, ds = cell.units, cell.small_units
    w = {"W": _as_float64(cell.kernel), "U": _as_float64(cell.recurrent_kernel)}
    w["b"] = _as_float64(cell.bias) if cell.use_bias else np.zeros(4 * d)
    if ds:
        w["Ws"], w["Us"] = _as_float64(cell.small_kernel), _as_float64(cell.small_recurrent_kernel)
        w["bs"] = _as_float64(cell.small_bias) if cell.use_bias else np.zeros(4 * ds)
    return w


def gru_weights(cell):
    """A GRU's biases, split as the op takes them: [b_z | b_r | b_xh] with
    Keras' input and recurrent biases of z and r summed, and b_hh apart
    (r scales it)."""
    from keras_skim.export.gru_emitters import gru_weights as keras_gru_weights

    w = {}
    for prefix, size, suffix in (("", cell.units, ""), ("small_", cell.small_units, "s")):
        if not size:
            continue
        kernel, recurrent, b_input, b_recurrent = keras_gru_weights(cell, prefix, size)
        w["W" + suffix], w["U" + suffix] = kernel, recurrent
        w["b" + suffix] = np.concatenate([b_input[: 2 * size] + b_recurrent[: 2 * size], b_input[2 * size :]])
        w["bhh" + suffix] = b_recurrent[2 * size :]
    return w


@dataclasses.dataclass(frozen=True)
class SkimOpCell:
    """One skim cell's op: its model kind, Keras class, gate blocks, weight
    reader (cell -> dict of float64 arrays) and NumPy step."""

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


CELLS = {
    "SkimLSTMCell": SkimOpCell("skim_lstm", "SkimLSTMCell", 4, lstm_weights, lstm_step),
    "SkimGRUCell": SkimOpCell("skim_gru", "SkimGRUCell", 3, gru_weights, gru_step),
}
