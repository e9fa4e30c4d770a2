"""The emitter of `keras.layers.LSTM` / `LSTMCell` (state `[h, c]`), and the
LSTM arithmetic a skim cell's emitter builds on (`lstm_gate_weights`,
`lstm_update`).

Gate columns are reordered to (i, f, o, c) so one LOGISTIC covers i, f, o.
"""

import numpy as np

from keras_skim.export.emitter_registry import CellEmitter, register_emitter
from keras_skim.export.weights import (
    check_activations,
    f32,
    reorder_lstm_gates,
    to_numpy,
)


def lstm_gate_weights(kernel, recurrent, bias, size):
    """(kernel, recurrent kernel, bias) of an LSTM in the (i, f, o, c) gate
    order; a zero bias without one."""
    kernel = reorder_lstm_gates(kernel, size)
    recurrent = reorder_lstm_gates(recurrent, size)
    bias = np.zeros(4 * size) if bias is None else reorder_lstm_gates(bias, size)
    return kernel, recurrent, bias


def lstm_update(tf, z, c_prev, size):
    """One LSTM update from pre-activations z [1, 4 size] in (i, f, o, c) order."""
    sig, g = tf.split(z, [3 * size, size], axis=1)
    i, f, o = tf.split(tf.sigmoid(sig), 3, axis=1)
    c = f * c_prev + i * tf.tanh(g)
    return o * tf.tanh(c), c


@register_emitter("LSTMCell")
class LSTMEmitter(CellEmitter):
    model_kind = "lstm"
    flop_kind = "lstm"

    def __init__(self, cell):
        super().__init__(cell)
        check_activations(cell)
        bias = to_numpy(cell.bias) if cell.use_bias else None
        self.kernel, self.recurrent, self.bias = lstm_gate_weights(
            to_numpy(cell.kernel), to_numpy(cell.recurrent_kernel), bias, self.units
        )
        self.input_dim = self.kernel.shape[0]

    def input_projections(self):
        return None, (self.kernel, self.bias)

    def initial_state(self):
        zeros = np.zeros((1, self.units), np.float32)
        return [zeros, zeros]

    def read_step(self, state, read_row, carry):
        import tensorflow as tf

        h, c = state
        z = tf.matmul(h, tf.constant(f32(self.recurrent))) + read_row
        return list(lstm_update(tf, z, c, self.units))
