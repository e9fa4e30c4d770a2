"""Emitter for `keras_skim.models.scornn.scornn_cell.ScoRNNCell` (scoRNN).

The orthogonal recurrent matrix `W = (I + A)^-1 (I - A) D` is formed once,
here, in float64 NumPy from the trained skew-symmetric `A` and `rho`; the
exported graph is a plain RNN with a constant `W`: per token one
FULLY_CONNECTED `h @ W`, the ADD of the token's precomputed row `x U + b`
(folded into the embedding table by the graph builder) and the modReLU
`sign(z) * relu(|z| + b_mod)` (SIGN, ABS, ADD, RELU, MUL). State layout:
`[h]`.
"""

import numpy as np

from keras_skim.export.emitter_registry import CellEmitter, register_emitter
from keras_skim.export.weights import f32, to_numpy


def scaled_cayley(skew_parameters, units, rho):
    """`W = (I + A)^-1 (I - A) D` in float64 (row-vector convention `h @ W`).

    `A` is skew-symmetric with its strict upper triangle filled row by row
    from `skew_parameters`; `D` has its last `rho` diagonal entries -1.
    """
    params = np.asarray(skew_parameters, dtype=np.float64).reshape(-1)
    upper = np.zeros((units, units))
    upper[np.triu_indices(units, k=1)] = params
    a = upper - upper.T
    eye = np.eye(units)
    scaling = np.concatenate([np.ones(units - rho), -np.ones(rho)])
    return np.linalg.solve(eye + a, eye - a) * scaling[None, :]


@register_emitter("ScoRNNCell")
class ScoRNNEmitter(CellEmitter):
    model_kind = "scornn"
    flop_kind = "scornn"

    def __init__(self, cell):
        super().__init__(cell)
        self.kernel = to_numpy(cell.kernel)
        self.bias = to_numpy(cell.bias) if cell.bias is not None else np.zeros(self.units)
        self.modrelu_bias = to_numpy(cell.modrelu_bias)
        self.recurrent = scaled_cayley(to_numpy(cell.skew_parameters), self.units, int(cell.rho))
        self.input_dim = self.kernel.shape[0]

    def input_projections(self):
        return None, (self.kernel, self.bias)

    def initial_state(self):
        return [np.zeros((1, self.units), np.float32)]

    def read_step(self, state, read_row, carry):
        import tensorflow as tf

        (h,) = state
        z = tf.matmul(h, tf.constant(f32(self.recurrent))) + read_row
        magnitude = tf.nn.relu(tf.abs(z) + tf.constant(f32(self.modrelu_bias)))
        return [tf.sign(z) * magnitude]
