"""Skim-GRU cell: a big and a small GRU that share one state."""

from typing import Any

import keras
from keras import ops

from keras_skim.models.skim_rnn.skim_cell_base import SkimCellBase, split_sizes


@keras.saving.register_keras_serializable(package="keras_skim")
class SkimGRUCell(SkimCellBase):
    """Skim-GRU cell (Skim-RNN with GRU cells), for `keras.layers.RNN`.

    The GRU variant of `SkimLSTMCell` (the paper: "any variant of RNN"). Two
    GRUs share the state h of size `units` (d); a gate chooses per token
    between the big GRU (updates all of h) and the small GRU of size
    `small_units` (d'), which reads x_t and the full h_{t-1} and updates
    only h[:d']. Both GRUs follow `keras.layers.GRUCell` with
    `reset_after=True`, so with threshold 0 the layer equals a
    `keras.layers.GRU` holding the big cell's weights. Training, the skim
    loss (how it is added, and where it does not apply), the threshold and
    the `skim_rate` and `skim_loss` metrics work as in `SkimLSTMCell`; the
    bookkeeping state comes after h.

    Args:
        units: int, size d of the state and of the big GRU.
        small_units: int, size d' of the small GRU, 0 <= d' < d.
        gamma: float, weight of the skim loss. Defaults to 0.01.
        threshold: float >= 0, read iff p_read >= threshold at inference
            (higher skims more; 1 - the paper's threshold).
        activation, recurrent_activation, use_bias, kernel_initializer,
        recurrent_initializer, bias_initializer, kernel_regularizer,
        recurrent_regularizer, bias_regularizer, kernel_constraint,
        recurrent_constraint, bias_constraint, dropout, recurrent_dropout:
            as in `keras.layers.GRUCell`.
        gate_initializer: initializer of the read/skim gate kernels.
        initial_temperature: Gumbel-softmax temperature before any schedule.
        seed: random seed for the Gumbel noise and dropout.
        **kwargs: base layer keyword arguments, such as `dtype`.

    Call arguments:
        inputs: a 2D tensor `(batch, features)`, one time step.
        states: list `[h, stats]` from the previous step.
        training: bool, Gumbel-softmax mixing (True) or hard decisions.

    Example:

    >>> import numpy as np, keras
    >>> from keras_skim import SkimGRUCell
    >>> layer = keras.layers.RNN(SkimGRUCell(16, 4))
    >>> layer(np.zeros((2, 5, 8), "float32")).shape
    (2, 16)

    Reference:
        Minjoon Seo, Sewon Min, Ali Farhadi, Hannaneh Hajishirzi.
        "Neural Speed Reading via Skim-RNN". ICLR 2018.
        https://arxiv.org/abs/1711.02085
    """

    rnn_state_count = 1

    def _gru_weights(self, prefix, input_dim, size):
        kernel = self._weight(f"{prefix}kernel", (input_dim, 3 * size), "kernel")
        recurrent = self._weight(f"{prefix}recurrent_kernel", (self.units, 3 * size), "recurrent")
        # Row 0: input bias, row 1: recurrent bias (Keras' reset_after GRU).
        bias = self._weight(f"{prefix}bias", (2, 3 * size), "bias") if self.use_bias else None
        return kernel, recurrent, bias

    def build_cells(self, input_dim: int) -> None:
        self.kernel, self.recurrent_kernel, self.bias = self._gru_weights("", input_dim, self.units)
        if self.small_units:
            (
                self.small_kernel,
                self.small_recurrent_kernel,
                self.small_bias,
            ) = self._gru_weights("small_", input_dim, self.small_units)

    def _gru(self, x, h_rec, h_prev, kernel, recurrent, bias):
        x_proj = ops.matmul(x, kernel)
        h_proj = ops.matmul(h_rec, recurrent)
        if bias is not None:
            x_proj = x_proj + bias[0]
            h_proj = h_proj + bias[1]
        return self._gru_from(x_proj, h_proj, h_prev)

    def _gru_from(self, x_proj, h_proj, h_prev):
        """[h] from the input part x K + b_0 and recurrent part h R + b_1."""
        x_z, x_r, x_h = ops.split(x_proj, 3, axis=-1)
        h_z, h_r, h_h = ops.split(h_proj, 3, axis=-1)
        z = self.recurrent_activation(x_z + h_z)
        r = self.recurrent_activation(x_r + h_r)
        candidate = self.activation(x_h + r * h_h)
        return [z * h_prev + (1.0 - z) * candidate]

    def big_step(self, x: Any, h_rec: Any, states: Any) -> Any:
        return self._gru(x, h_rec, states[0], self.kernel, self.recurrent_kernel, self.bias)

    def small_step(self, x: Any, h_rec: Any, states: Any) -> Any:
        h_small = states[0][:, : self.small_units]
        return self._gru(
            x,
            h_rec,
            h_small,
            self.small_kernel,
            self.small_recurrent_kernel,
            self.small_bias,
        )

    def fused_weights(self) -> Any:
        # Columns [z r | scaled gate | gate logit | candidate], each GRU block
        # with the big cell's units and the small cell's side by side, so
        # that one recurrent activation serves both cells and (when it is
        # the sigmoid) the Gumbel-softmax weight.
        gate_kernel, gate_recurrent, gate_bias = self.gate_columns()
        cells = [(self.kernel, self.recurrent_kernel, self.bias, self.units)]
        if self.small_units:
            cells.append((self.small_kernel, self.small_recurrent_kernel, self.small_bias, self.small_units))
        n = self.units + self.small_units

        def with_gate(gru, gate):
            return ops.concatenate([gru[..., : 2 * n], gate, gru[..., 2 * n :]], axis=-1)

        kernel = with_gate(_side_by_side([c[0] for c in cells]), gate_kernel)
        recurrent = with_gate(_side_by_side([c[1] for c in cells]), gate_recurrent)
        if not self.use_bias:
            return kernel, recurrent, with_gate(ops.zeros((3 * n,), gate_bias.dtype), gate_bias), None, 2 * n
        biases = [ops.convert_to_tensor(c[2]) for c in cells]
        input_bias = with_gate(_side_by_side([b[0] for b in biases]), gate_bias)
        recurrent_bias = with_gate(_side_by_side([b[1] for b in biases]), ops.zeros_like(gate_bias))
        return kernel, recurrent, input_bias, recurrent_bias, 2 * n

    def fused_step(self, row: Any, loop_states: Any, recurrent_part: Any) -> Any:
        (h_prev,) = states = loop_states
        d, small, n = self.units, self.small_units, self.units + self.small_units
        x_gates, x_h = split_sizes(row, [2 * n + 2, n])
        h_gates, h_h = split_sizes(recurrent_part(h_prev), [2 * n + 2, n])
        gates = x_gates + h_gates
        if self.recurrent_activation is keras.activations.sigmoid:
            gates, logit = split_sizes(gates, [2 * n + 1, 1])
            z, r, read_weight = split_sizes(self.recurrent_activation(gates), [n, n, 1])
        else:
            gates, scaled, logit = split_sizes(gates, [2 * n, 1, 1])
            z, r = split_sizes(self.recurrent_activation(gates), [n, n])
            read_weight = ops.sigmoid(scaled)
        candidate = self.activation(x_h + r * h_h)
        h_cells = h_prev
        if small:
            h_head, h_tail = split_sizes(h_prev, [small, d - small])
            # the big cell's h, then the small cell's
            h_cells = ops.concatenate([h_prev, h_head], axis=-1)
        # = z * h_cells + (1 - z) * candidate, with one product
        h = candidate + z * (h_cells - candidate)
        if not small:
            return [h], states, read_weight, logit
        h_big, h_small = split_sizes(h, [d, small])
        # Joined by the loop's mix (whose gradient cuts them apart again).
        return [h_big], [(h_small, h_tail)], read_weight, logit


def _side_by_side(weights):
    """The [z r h] gate blocks of each weight, each gate's blocks of all
    cells side by side. One split of each weight: its gradient is one
    concat, where a slice per block makes a gradient of the weight's size
    each, summed."""
    blocks = [ops.split(ops.convert_to_tensor(w), 3, axis=-1) for w in weights]
    return ops.concatenate([b[k] for k in range(3) for b in blocks], axis=-1)
