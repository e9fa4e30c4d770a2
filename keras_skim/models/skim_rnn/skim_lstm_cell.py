"""Skim-LSTM cell: a big and a small LSTM that share one state."""

from typing import Any

import keras
from keras import ops

from keras_skim.models.skim_rnn.skim_cell_base import SkimCellBase, split_sizes


@keras.saving.register_keras_serializable(package="keras_skim")
class SkimLSTMCell(SkimCellBase):
    """Skim-LSTM cell (Skim-RNN with LSTM cells), for `keras.layers.RNN`.

    Two LSTMs share one state (h, c) of size `units` (d). At each token a
    gate p_t = softmax(W [x_t; h_{t-1}] + b) chooses between reading, where
    the big LSTM (size d) updates the whole state, and skimming, where the
    small LSTM (size `small_units`, d') reads x_t and the full h_{t-1} and
    updates only the first d' dimensions of h and c; the rest is copied.
    `small_units=0` copies the whole state: the paper's skip baseline.

    In training the choice is a Gumbel-softmax sample at the cell's
    `temperature` (schedule it with `keras_skim.GumbelTemperatureSchedule`)
    and the new state is the sample-weighted mix of the two candidates
    (paper eq. 5-7). At inference the choice is hard: read iff
    p_read >= `threshold`, decided on the logits as
    l_read - l_skim >= log(t / (1 - t)). A higher threshold skims more:
    threshold 0 gives a plain LSTM with the big cell's weights, 1 and above
    always skims. The paper's threshold is on p_skim (its Figures 5 and 10),
    so ours is 1 minus the paper's. The threshold can be changed after
    training (`cell.threshold = 0.3` or `keras_skim.set_threshold(model, 0.3)`)
    without retracing.

    The skim loss (paper eq. 8): `gamma` times the batch mean of each
    sequence's mean, over its real tokens, of -log p_skim. It is an ordinary
    Keras loss of the cell (`add_loss`), added by plain `model.fit`, so it is
    in `model.losses` and in the logged `loss` (and `val_loss`), scaled with
    the rest of the loss by `keras.optimizers.LossScaleOptimizer` (mixed
    precision) and across `tf.distribute` replicas, and independent of sample
    weights and of how the layer's outputs are used; the logs also show it
    alone as `skim_loss`. How: the cell carries a fifth state of size 4 next
    to (h, c) (real tokens, skimmed tokens, sum of -log p_skim with its
    gradient, this step's decision), which Keras leaves unchanged at padded
    steps, so after the loop it covers exactly the real tokens of any mask.
    The `keras.layers.RNN` drops that final state, so when the RNN layer
    calls the cell's `get_dropout_mask` before its loop, the cell wraps that
    layer's `inner_loop` (on the instance) to read the final state, call
    `add_loss` and update the `skim_rate` and `skim_loss` metrics. The
    bookkeeping runs in float32 under mixed precision.

    Where it does not apply: the cell must run inside a `keras.layers.RNN`
    (also inside `Bidirectional` or a `StackedRNNCells`) that is a tracked
    sublayer of the layer being called; training with gamma > 0 otherwise
    raises a `ValueError`, as does calling the cell directly in training. A
    custom training loop must add `model.losses` to its loss, as for any
    `add_loss`. The hook uses Keras 3 internals, all in
    `keras_skim/keras_internals.py` (the pre-loop `get_dropout_mask`
    call, `RNN.inner_loop`, the layer call context; checked with Keras
    3.15); `keras_skim.SkimLSTM`, the layer that owns its loop, needs none
    but the `DropoutRNNCell` base. With several skim cells in one model the
    logs show one cell's `skim_rate` and `skim_loss` (Keras keys them by
    name); `loss` includes every cell's term.

    Training loop: with the TensorFlow backend, when the cell is the RNN
    layer's only cell, training runs a fused loop instead of `call` at every
    step (`keras_skim/models/skim_rnn/skim_training_loop.py`): the input products of
    the big LSTM, the small LSTM and the gate, with the Gumbel noise as one
    more input feature, in one matmul per step, one recurrent matmul per
    step, and the skim bookkeeping after the loop. Same gradients (tested);
    `cell.fused_loop = False` runs `call` at every step instead.

    Args:
        units: int, size d of the shared state and of the big LSTM.
        small_units: int, size d' of the small LSTM, 0 <= d' < d.
        gamma: float, weight of the skim loss. Defaults to 0.01.
        threshold: float >= 0, read iff p_read >= threshold at inference
            (higher skims more; 1 - the paper's threshold). Defaults to 0.5.
        activation: activation of the cell candidate and output.
        recurrent_activation: activation of the input/forget/output gates.
        use_bias: whether the LSTMs use a bias vector.
        kernel_initializer, recurrent_initializer, bias_initializer:
            initializers of the LSTM weights, as in `keras.layers.LSTMCell`.
        unit_forget_bias: add 1 to the forget-gate bias at initialization.
        gate_initializer: initializer of the read/skim gate kernels (its bias
            starts at zero, so p_read starts near 0.5).
        kernel_regularizer, recurrent_regularizer, bias_regularizer,
        kernel_constraint, recurrent_constraint, bias_constraint: as in
            `keras.layers.LSTMCell`.
        dropout: fraction of the inputs to drop in training.
        recurrent_dropout: fraction of h_{t-1} to drop in training.
        initial_temperature: Gumbel-softmax temperature before any schedule.
        seed: random seed for the Gumbel noise and dropout.
        **kwargs: base layer keyword arguments, such as `dtype`.

    Call arguments:
        inputs: a 2D tensor `(batch, features)`, one time step.
        states: list `[h, c, stats]` from the previous step.
        training: bool, Gumbel-softmax mixing (True) or hard decisions.

    Example:

    >>> import numpy as np, keras
    >>> from keras_skim import SkimLSTMCell
    >>> layer = keras.layers.RNN(SkimLSTMCell(16, 4))
    >>> layer(np.zeros((2, 5, 8), "float32")).shape
    (2, 16)

    Reference:
        Minjoon Seo, Sewon Min, Ali Farhadi, Hannaneh Hajishirzi.
        "Neural Speed Reading via Skim-RNN". ICLR 2018.
        https://arxiv.org/abs/1711.02085
    """

    rnn_state_count = 2
    constructor_arguments = SkimCellBase.constructor_arguments + ("unit_forget_bias",)

    def __init__(self, units: int, small_units: int, unit_forget_bias: bool = True, **kwargs: Any) -> None:
        super().__init__(units, small_units, **kwargs)
        self.unit_forget_bias = unit_forget_bias

    def _lstm_weights(self, prefix, input_dim, size):
        kernel = self._weight(f"{prefix}kernel", (input_dim, 4 * size), "kernel")
        recurrent = self._weight(f"{prefix}recurrent_kernel", (self.units, 4 * size), "recurrent")
        bias = None
        if self.use_bias:
            if self.unit_forget_bias:
                base = self.bias_initializer

                def forget_bias(shape, dtype=None):
                    return ops.concatenate(
                        [
                            base((size,), dtype=dtype),
                            ops.ones((size,), dtype=dtype),
                            base((2 * size,), dtype=dtype),
                        ]
                    )

                initializer = forget_bias
            else:
                initializer = self.bias_initializer
            bias = self.add_weight(
                shape=(4 * size,),
                name=f"{prefix}bias",
                initializer=initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        return kernel, recurrent, bias

    def build_cells(self, input_dim: int) -> None:
        self.kernel, self.recurrent_kernel, self.bias = self._lstm_weights("", input_dim, self.units)
        if self.small_units:
            (
                self.small_kernel,
                self.small_recurrent_kernel,
                self.small_bias,
            ) = self._lstm_weights("small_", input_dim, self.small_units)

    def _lstm(self, x, h_rec, c_prev, kernel, recurrent, bias):
        z = ops.matmul(x, kernel) + ops.matmul(h_rec, recurrent)
        if bias is not None:
            z = z + bias
        return self._lstm_from(z, c_prev)

    def _lstm_from(self, z, c_prev):
        """(h, c) from the pre-activations z = x K + h R + b."""
        z_i, z_f, z_c, z_o = ops.split(z, 4, axis=-1)
        i = self.recurrent_activation(z_i)
        f = self.recurrent_activation(z_f)
        c = f * c_prev + i * self.activation(z_c)
        o = self.recurrent_activation(z_o)
        return [o * self.activation(c), c]

    def big_step(self, x: Any, h_rec: Any, states: Any) -> Any:
        return self._lstm(x, h_rec, states[1], self.kernel, self.recurrent_kernel, self.bias)

    def small_step(self, x: Any, h_rec: Any, states: Any) -> Any:
        c_small = states[1][:, : self.small_units]
        return self._lstm(
            x,
            h_rec,
            c_small,
            self.small_kernel,
            self.small_recurrent_kernel,
            self.small_bias,
        )

    def fused_weights(self) -> Any:
        # Columns [i f o | scaled gate | candidate | gate logit], each LSTM
        # block with the big cell's units and the small cell's side by side,
        # so that one recurrent activation serves both cells and (when it is
        # the sigmoid) the Gumbel-softmax weight.
        gate_kernel, gate_recurrent, gate_bias = self.gate_columns()
        big = [self.kernel, self.recurrent_kernel, self.bias]
        small = [self.small_kernel, self.small_recurrent_kernel, self.small_bias] if self.small_units else None
        if not self.use_bias:
            big[2] = ops.zeros((4 * self.units,), gate_bias.dtype)
            if small:
                small[2] = ops.zeros((4 * self.small_units,), gate_bias.dtype)
        width = 3 * (self.units + self.small_units)
        fused = []
        for k, gate in enumerate((gate_kernel, gate_recurrent, gate_bias)):
            # One split of each weight into its gate blocks [i f c o]: its
            # gradient is one concat, where a slice per block makes a
            # gradient of the weight's size each, summed.
            blocks = [ops.split(ops.convert_to_tensor(cell[k]), 4, axis=-1) for cell in (big, small) if cell]
            scaled, logit = ops.split(gate, 2, axis=-1)
            columns = [b[g] for g in (0, 1, 3) for b in blocks] + [scaled] + [b[2] for b in blocks] + [logit]
            fused.append(ops.concatenate(columns, axis=-1))
        return fused[0], fused[1], fused[2], None, width

    def pack_fused_states(self, states: Any) -> Any:
        # h and c in one tensor: one mix and one select per step.
        return [ops.concatenate(states, axis=-1)]

    def unpack_fused_states(self, loop_states: Any) -> Any:
        return split_sizes(loop_states[0], [self.units, self.units])

    def fused_output(self, loop_state: Any) -> Any:
        return loop_state[..., : self.units]

    def fused_step(self, row: Any, loop_states: Any, recurrent_part: Any) -> Any:
        (hc,) = loop_states
        d, small, n = self.units, self.small_units, self.units + self.small_units
        if small:
            h_prev, h_tail, c_prev, c_tail = _state_parts(hc, d, small)
        else:
            h_prev, c_prev = split_sizes(hc, [d, d])
        z = row + recurrent_part(h_prev)
        if self.recurrent_activation is keras.activations.sigmoid:
            gates, candidate, logit = split_sizes(z, [3 * n + 1, n, 1])
            i, f, o, read_weight = split_sizes(self.recurrent_activation(gates), [n, n, n, 1])
        else:
            gates, scaled, candidate, logit = split_sizes(z, [3 * n, 1, n, 1])
            i, f, o = split_sizes(self.recurrent_activation(gates), [n, n, n])
            read_weight = ops.sigmoid(scaled)
        c = f * c_prev + i * self.activation(candidate)
        h = o * self.activation(c)
        if not small:
            return [ops.concatenate([h, c], axis=-1)], [hc], read_weight, logit
        h_big, h_small = split_sizes(h, [d, small])
        c_big, c_small = split_sizes(c, [d, small])
        # Joined by the loop's mix (whose gradient cuts them apart again).
        return [(h_big, c_big)], [(h_small, h_tail, c_small, c_tail)], read_weight, logit


def _state_parts(hc, units, small):
    """(h, h's tail, c of both cells, c's tail) of the fused loop's state
    [h | c]: c of both cells is [c | c's first `small` units], the big
    cell's c then the small cell's; a tail is what follows the first
    `small` units.

    Its gradient is written out: the derived one takes an offset and a
    slice for each piece of the joined c, fills zeros for the unused head
    of h and sums each part's gradients in separate ops (about twice the
    ops, at every step of the backward loop)."""

    @ops.custom_gradient
    def parts(hc):
        h, c_head, c_tail = split_sizes(hc, [units, small, units - small])
        parts = (h, h[:, small:], ops.concatenate([c_head, c_tail, c_head], axis=-1), c_tail)

        def gradient(to_h, to_h_tail, to_cells, to_c_tail):
            to_h_head, to_h_rest = split_sizes(to_h, [small, units - small])
            big_head, big_tail, small_head = split_sizes(to_cells, [small, units - small, small])
            pieces = [to_h_head, to_h_rest + to_h_tail, big_head + small_head, big_tail + to_c_tail]
            return ops.concatenate(pieces, axis=-1)

        return parts, gradient

    return parts(hc)
