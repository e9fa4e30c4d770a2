"""Emitters for `keras.layers.LSTM` / `LSTMCell` and `SkimLSTMCell`.

State layout, chosen so that the frequent skim step needs no slicing:
plain LSTM `[h, c]`; Skim-LSTM with d' > 0 `[h, c_small, c_rest, h_rest]`
(the read step, the rarer one, pays for the concatenation and the split).
Gate columns are reordered to (i, f, o, c) so one LOGISTIC covers i, f, o.
"""

import numpy as np

from keras_skim.export.emitter_registry import (
    CellEmitter,
    SkimInputProjections,
    register_emitter,
)
from keras_skim.export.weights import (
    check_activations,
    f32,
    reorder_lstm_gates,
    to_numpy,
)


def _lstm_weights(kernel, recurrent, bias, size):
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
        self.kernel, self.recurrent, self.bias = _lstm_weights(
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


@register_emitter("SkimLSTMCell")
class SkimLSTMEmitter(SkimInputProjections, LSTMEmitter):
    model_kind = "skim_lstm"
    skims = True

    def __init__(self, cell):
        super().__init__(cell)
        self.read_skim_gate(cell)
        if self.small_units:
            small_bias = to_numpy(cell.small_bias) if cell.use_bias else None
            self.small_kernel, self.small_recurrent, self.small_input_bias = _lstm_weights(
                to_numpy(cell.small_kernel),
                to_numpy(cell.small_recurrent_kernel),
                small_bias,
                self.small_units,
            )

    def initial_state(self):
        d, ds = self.units, self.small_units
        if not ds:
            return super().initial_state()
        return [np.zeros((1, n), np.float32) for n in (d, ds, d - ds, d - ds)]

    def pre_step(self, state, pre_row):
        import tensorflow as tf

        h = state[0]
        if not self.small_units:
            a = tf.matmul(h, tf.constant(f32(self.gate_recurrent))) + pre_row
            return tf.reshape(a, []), ()
        weights = np.concatenate([self.small_recurrent, self.gate_recurrent], axis=1)
        a = tf.matmul(h, tf.constant(f32(weights))) + pre_row
        ds = self.small_units
        sig, g, gate = tf.split(a, [3 * ds, ds, 1], axis=1)
        return tf.reshape(gate, []), (sig, g)

    def skim_step(self, state, carry):
        import tensorflow as tf

        if not self.small_units:
            return [tf.identity(s) for s in state]
        h, c_small, c_rest, h_rest = state
        sig, g = carry
        i, f, o = tf.split(tf.sigmoid(sig), 3, axis=1)
        c_small = f * c_small + i * tf.tanh(g)
        h_small = o * tf.tanh(c_small)
        return [tf.concat([h_small, h_rest], axis=1), c_small, c_rest, h_rest]

    def read_step(self, state, read_row, carry):
        import tensorflow as tf

        if not self.small_units:
            return super().read_step(state, read_row, carry)
        d, ds = self.units, self.small_units
        h, c_small, c_rest, _ = state
        c = tf.concat([c_small, c_rest], axis=1)
        h, c = super().read_step([h, c], read_row, carry)
        c_small, c_rest = tf.split(c, [ds, d - ds], axis=1)
        _, h_rest = tf.split(h, [ds, d - ds], axis=1)
        return [h, c_small, c_rest, h_rest]
