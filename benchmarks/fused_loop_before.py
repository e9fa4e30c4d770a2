"""The fused training loop as it was at commit 7a35a01 (before issue 20's second
round: 3D input matmul, one-hot noise product, broadcast mix and select with
TensorFlow's derived gradient), kept so that benchmarks/training_speed.py times
before and after in one run. Not used by the library.
"""

import tensorflow as tf

from keras_skim.keras_internals import DropoutRNNCell
from keras_skim.models.skim_rnn.skim_state_layout import NUM_STATS, STAT_PENDING

# The pending decision is the last entry of the bookkeeping state.
assert STAT_PENDING == NUM_STATS - 1


def fused_training_loop(cell, sequences, initial_state, mask, go_backwards, return_sequences):
    """`(last_output, outputs, states)` as `keras.layers.RNN.inner_loop`
    returns them, for one skim `cell` in training; `states` ends with the
    float32 bookkeeping state (see `SkimCellBase`)."""
    count = cell.rnn_state_count
    states = cell.pack_fused_states([cell._in_compute_dtype(s) for s in initial_state[:count]])
    initial_stats = tf.cast(initial_state[count], tf.float32)
    x = tf.transpose(cell._in_compute_dtype(sequences), [1, 0, 2])
    if mask is not None:
        mask = tf.transpose(tf.cast(mask, tf.bool))[..., None]  # (steps, batch, 1)
    if go_backwards:
        x = tf.reverse(x, [0])
        mask = None if mask is None else tf.reverse(mask, [0])
    rows, recurrent, recurrent_bias, noise = _project(cell, x)
    steps = tf.shape(rows)[0]
    recurrent_mask = None
    if cell.recurrent_dropout > 0.0:
        recurrent_mask = cell.get_recurrent_dropout_mask(initial_state[0])

    def recurrent_part(h):
        """h_{t-1} @ the recurrent kernel + bias, after recurrent dropout."""
        if recurrent_mask is not None:
            h = h * recurrent_mask
        product = tf.matmul(h, recurrent)
        return product if recurrent_bias is None else product + recurrent_bias

    row_array = tf.TensorArray(rows.dtype, size=steps).unstack(rows)
    mask_array = None if mask is None else tf.TensorArray(tf.bool, size=steps).unstack(mask)
    logit_array = tf.TensorArray(rows.dtype, size=steps)
    # Only with return_sequences: an unwritten TensorArray in the loop
    # breaks its XLA gradient ("uninitialized list").
    arrays = [logit_array] + ([tf.TensorArray(rows.dtype, size=steps)] if return_sequences else [])

    def body(t, *arrays_and_states):
        written, states = arrays_and_states[: len(arrays)], arrays_and_states[len(arrays) :]
        read, skim, read_weight, logit = cell.fused_step(row_array.read(t), list(states), recurrent_part)
        # = w_read * read + (1 - w_read) * skim, with one product
        read, skim = [[_joined(c) for c in candidate] for candidate in (read, skim)]
        new_states = [s + read_weight * (r - s) for r, s in zip(read, skim)]
        if mask_array is not None:
            real = mask_array.read(t)
            new_states = [tf.where(real, n, s) for n, s in zip(new_states, states)]
        written = [written[0].write(t, logit)] + [a.write(t, new_states[0]) for a in written[1:]]
        return (t + 1, *written, *new_states)

    loop = tf.while_loop(
        lambda t, *_: t < steps,
        body,
        (tf.constant(0), *arrays, *states),
        maximum_iterations=steps,
        swap_memory=True,
    )
    final_states = cell.unpack_fused_states(list(loop[1 + len(arrays) :]))
    real = tf.ones((steps, tf.shape(x)[1], 1), tf.float32) if mask is None else tf.cast(mask, tf.float32)
    stats = _final_stats(cell, initial_stats, tf.cast(loop[1].stack(), tf.float32), noise, real)
    any_real = tf.reduce_max(real, axis=0) > 0.0
    # Keras' loop outputs zeros until the first real step (zero_output_for_mask=False).
    last_output = tf.where(any_real, final_states[0], tf.zeros_like(final_states[0]))
    if return_sequences:
        seen = tf.cumsum(real, axis=0) > 0.0
        outputs = cell.fused_output(loop[2].stack())  # (steps, batch, units)
        outputs = tf.transpose(tf.where(seen, outputs, tf.zeros_like(outputs)), [1, 0, 2])
    else:
        outputs = last_output[:, None, :]
    return last_output, outputs, final_states + [stats]


def _joined(candidate):
    """A candidate state that today's `fused_step` returns as a tuple of
    pieces, joined as the cells joined it at 7a35a01."""
    return tf.concat(list(candidate), axis=-1) if isinstance(candidate, tuple) else candidate


def _project(cell, x):
    """(rows, recurrent kernel, recurrent bias, Gumbel noise): the rows are
    x @ kernel + bias for all steps, (steps, batch, width), with the noise
    over the temperature added to the cell's scaled gate column; the noise
    is g_read - g_skim, (steps, batch, 1), float32."""
    kernel, recurrent, bias, recurrent_bias, scaled_column = cell.fused_weights()
    if cell.dropout > 0.0:
        # Keras' cells drop the same input units at every step.
        x = x * DropoutRNNCell.get_dropout_mask(cell, x[0])
    rows = tf.matmul(x, kernel)
    if bias is not None:
        rows = rows + bias
    steps, batch = tf.shape(x)[0], tf.shape(x)[1]
    gumbel = tf.convert_to_tensor(cell._gumbel_noise((batch, steps, 2)), tf.float32)
    noise = tf.transpose(gumbel[..., :1] - gumbel[..., 1:], [1, 0, 2])
    inverse_temperature = 1.0 / tf.stop_gradient(tf.cast(cell.temperature, tf.float32))
    one_hot = tf.one_hot(scaled_column, tf.shape(rows)[-1], dtype=rows.dtype)
    rows = rows + tf.cast(noise * inverse_temperature, rows.dtype) * one_hot
    return rows, recurrent, recurrent_bias, noise


def _final_stats(cell, initial_stats, logits, noise, real):
    """The bookkeeping state after the sequence (see `SkimCellBase`): real
    tokens, skimmed tokens, sum of -log p_skim over the real tokens (with
    its gradient), and the decision of the last real step."""
    # -log p_skim = softplus(l_read - l_skim)
    neg_log_p_skim = tf.nn.softplus(logits)
    if cell.gamma == 0.0:
        neg_log_p_skim = tf.stop_gradient(neg_log_p_skim)
    # Skimmed iff the Gumbel-softmax weight of reading is below 1/2, i.e.
    # l + g_read - g_skim < 0 (the temperature does not change the sign).
    skimmed = tf.stop_gradient(tf.cast(logits + noise < 0.0, tf.float32))
    # The last real step: real, and no real step after it.
    last = real * tf.cast(tf.equal(tf.cumsum(real, axis=0, reverse=True), 1.0), tf.float32)
    any_real = tf.reduce_max(real, axis=0)
    step = tf.concat(
        [
            tf.reduce_sum(real, axis=0),
            tf.reduce_sum(real * skimmed, axis=0),
            tf.reduce_sum(real * neg_log_p_skim, axis=0),
            tf.reduce_sum(last * skimmed, axis=0),
        ],
        axis=-1,
    )
    # The initial decision is kept only by a sequence without real steps.
    keep = tf.concat([tf.ones_like(any_real)] * STAT_PENDING + [1.0 - any_real], axis=-1)
    return initial_stats * keep + step
