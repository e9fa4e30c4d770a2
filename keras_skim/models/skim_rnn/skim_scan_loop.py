"""The training loop of one skim cell on the JAX backend (issue 34): the
fused loop of `skim_training_loop` (TensorFlow) in `keras.ops`, run by
`keras.ops.scan` (`jax.lax.scan`).

`keras.layers.RNN` runs the cell's `call` at every step: six small matmuls
(the input and recurrent products of the big cell, the small cell and the
gate), a Gumbel draw from a per-step key, and the bookkeeping state. Here,
as in the TensorFlow loop:

- the input products of the big cell, the small cell and the gate for all
  steps are one matmul before the loop, with the Gumbel noise of all steps
  drawn at once and added over the temperature to the gate's scaled column;
- a step is one recurrent matmul `h @ [R_big | R_small | r_gate]` and the
  cell's `fused_step`, the mix of the two candidates and, at padded steps,
  the previous state;
- the gate logit l_read - l_skim of every step comes out of the loop, and
  the skim loss, the counts and the last decision are computed after it.

The same arithmetic as the per-step `call` (tests/backends).
"""

from keras import ops

from keras_skim.keras_internals import DropoutRNNCell
from keras_skim.models.skim_rnn.skim_state_layout import NUM_STATS, STAT_PENDING

# The pending decision is the last entry of the bookkeeping state.
assert STAT_PENDING == NUM_STATS - 1


def scan_training_loop(cell, sequences, initial_state, mask, go_backwards, return_sequences):
    """`(last_output, outputs, states)` as `keras.layers.RNN.inner_loop`
    returns them, for one skim `cell` in training; `states` ends with the
    float32 bookkeeping state (see `SkimCellBase`)."""
    count = cell.rnn_state_count
    states = cell.pack_fused_states([cell._in_compute_dtype(s) for s in initial_state[:count]])
    x = ops.transpose(cell._in_compute_dtype(sequences), [1, 0, 2])  # (steps, batch, features)
    real = (
        ops.ones(ops.shape(x)[:2] + (1,), "bool") if mask is None else ops.transpose(ops.cast(mask, "bool"))[..., None]
    )
    if go_backwards:
        x, real = ops.flip(x, 0), ops.flip(real, 0)
    rows, recurrent, recurrent_bias, noise = _project(cell, x)
    recurrent_mask = cell.get_recurrent_dropout_mask(initial_state[0]) if cell.recurrent_dropout > 0.0 else None

    def recurrent_part(h):
        """h_{t-1} @ the recurrent kernel + bias, after recurrent dropout."""
        product = ops.matmul(h if recurrent_mask is None else h * recurrent_mask, recurrent)
        return product if recurrent_bias is None else product + recurrent_bias

    def step(carry, inputs):
        row, is_real = inputs
        read, skim, read_weight, logit = cell.fused_step(row, list(carry), recurrent_part)
        new = [ops.where(is_real, s + read_weight * (r - s), p) for r, s, p in zip(read, skim, carry)]
        return new, (logit, new[0] if return_sequences else logit)

    final, (logits, written) = ops.scan(step, states, (rows, real))
    final_states = cell.unpack_fused_states(list(final))
    real = ops.cast(real, "float32")
    stats = final_stats(cell, ops.cast(initial_state[count], "float32"), ops.cast(logits, "float32"), noise, real)
    any_real = ops.max(real, axis=0) > 0.0
    # Keras' loop outputs zeros until the first real step (zero_output_for_mask=False).
    last_output = ops.where(any_real, final_states[0], ops.zeros_like(final_states[0]))
    if return_sequences:
        seen = ops.cumsum(real, axis=0) > 0.0
        outputs = cell.fused_output(written)  # (steps, batch, units)
        outputs = ops.transpose(ops.where(seen, outputs, ops.zeros_like(outputs)), [1, 0, 2])
    else:
        outputs = last_output[:, None, :]
    return last_output, outputs, final_states + [stats]


def _project(cell, x):
    """(rows, recurrent kernel, recurrent bias, Gumbel noise): the rows are
    x @ kernel + bias for all steps, (steps, batch, width), with the noise
    over the temperature added to the cell's scaled gate column; the noise
    is g_read - g_skim, (steps, batch, 1), float32."""
    kernel, recurrent, bias, recurrent_bias, scaled_column = cell.fused_weights()
    if cell.dropout > 0.0:
        # Keras' cells drop the same input units at every step.
        x = x * DropoutRNNCell.get_dropout_mask(cell, x[0])
    steps, batch, features = ops.shape(x)
    # Drawn batch-major, as the TensorFlow loop draws it.
    gumbel = ops.convert_to_tensor(cell._gumbel_noise((batch, steps, 2)))
    noise = ops.transpose(gumbel[..., :1] - gumbel[..., 1:], [1, 0, 2])
    inverse_temperature = 1.0 / ops.stop_gradient(ops.cast(cell.temperature, "float32"))
    rows = ops.reshape(ops.matmul(ops.reshape(x, (-1, features)), kernel), (steps, batch, -1))
    if bias is not None:
        rows = rows + bias
    width = ops.shape(rows)[-1]
    column = ops.cast(ops.arange(width) == scaled_column, rows.dtype)
    rows = rows + ops.cast(noise * inverse_temperature, rows.dtype) * column
    return rows, recurrent, recurrent_bias, noise


def final_stats(cell, initial_stats, logits, noise, real):
    """The bookkeeping state after the sequence (see `SkimCellBase`): real
    tokens, skimmed tokens, sum of -log p_skim over the real tokens (with
    its gradient), and the decision of the last real step; `logits`, `noise`
    and `real` are (steps, batch, 1), float32."""
    # -log p_skim = softplus(l_read - l_skim)
    neg_log_p_skim = ops.softplus(logits)
    if cell.gamma == 0.0:
        neg_log_p_skim = ops.stop_gradient(neg_log_p_skim)
    # Skimmed iff the Gumbel-softmax weight of reading is below 1/2, i.e.
    # l + g_read - g_skim < 0 (the temperature does not change the sign).
    skimmed = ops.stop_gradient(ops.cast(logits + noise < 0.0, "float32"))
    # The last real step: real, and no real step after it.
    real_after = ops.flip(ops.cumsum(ops.flip(real, 0), axis=0), 0)
    last = real * ops.cast(real_after == 1.0, "float32")
    any_real = ops.max(real, axis=0)
    step = ops.concatenate(
        [
            ops.sum(real, axis=0),
            ops.sum(real * skimmed, axis=0),
            ops.sum(real * neg_log_p_skim, axis=0),
            ops.sum(last * skimmed, axis=0),
        ],
        axis=-1,
    )
    # The initial decision is kept only by a sequence without real steps.
    keep = ops.concatenate([ops.ones_like(any_real)] * STAT_PENDING + [1.0 - any_real], axis=-1)
    return initial_stats * keep + step
