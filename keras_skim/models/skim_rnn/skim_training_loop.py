"""The training loop of one skim cell on the TensorFlow backend (issue 20).

`keras.layers.RNN` runs a cell's `call` at every step, and TensorFlow pays
for every op that a `tf.while_loop` body runs, forward and backward (a
Skim-LSTM step was 114 ops to the LSTM's 36, its gradient 203 to 73). This
loop keeps only what depends on the state inside:

- the inputs of all steps, time-major, with the Gumbel noise over the
  temperature as one more input feature (whose kernel row is one-hot) and
  a feature of ones (whose kernel row is the input bias), prepared before
  the loop; per step one input matmul, `x_t @ [K_big | K_small | k_gate]`,
  which adds the bias too: no bias op per step, and no bias gradient to
  sum at every step of the backward loop. Not one matmul of all steps before the
  loop (issue 36): its (steps, batch, width) rows, several times wider than
  the inputs, read through a TensorList, cost in the gradient a zero-filled
  list of that size, its stack and fresh memory at every batch (page faults
  and CPU time: benchmarks/results/training_time_spread.md);
- one recurrent matmul per step, `h @ [R_big | R_small | r_gate]`, the
  columns laid out by the cell (`fused_weights`) so that one activation
  serves both cells and the Gumbel-softmax weight;
- the mix of the candidates and one select of whole rows at masked steps,
  with a written-out gradient (`_mix`): the one TensorFlow derives, with the
  batch size unknown at tracing, adds shape ops at every step;
- the gate logit l_read - l_skim written out per step: the skim loss, the
  skim counts and the last decision are computed after the loop over all
  steps at once, instead of a bookkeeping state updated at every step.

It computes what the per-step `call` computes (same gradients to float
tolerance, tests/layers/test_skim_fast_loop.py). Only imported with the
TensorFlow backend.

Where the step's time over keras.layers.LSTM's goes (issue 36, item 5;
benchmarks/training_step_ablation.py, results in
benchmarks/results/training_step_ablation_*.md): with the mix replaced by
the read candidate, the step costs about the LSTM's without a small cell and
a little more with one; without a small cell, with the mix, a little more;
the layer itself, small cell and mix together, clearly more: the small
cell's candidate (its pieces cut from h and c and joined with the state's
tails) through the mix and its gradient is most of the difference; the
Gumbel noise and the statistics after the loop weigh little. The op count
alone is not the measure: two steps with their whole gradient written out
(one `tf.custom_gradient` from the state to the new state; 11 tensors kept
for the backward loop instead of 15, and in the second a few computing ops
fewer each way, the candidates joined once as (batch, h/c, read/skim,
units)) were no faster than this loop, timed in the same process. A
sampling profile of the steady state (perf, by symbol) puts a larger share
of this loop's time than of the LSTM's in memory copies and allocations
(memmove, malloc and free: the joins and cuts of the candidates' pieces),
and a smaller one in the matmuls.
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
    inputs, kernel, recurrent, recurrent_bias, noise = _project(cell, x)
    steps = tf.shape(inputs)[0]
    recurrent_mask = None
    if cell.recurrent_dropout > 0.0:
        recurrent_mask = cell.get_recurrent_dropout_mask(initial_state[0])

    def recurrent_part(h):
        """h_{t-1} @ the recurrent kernel + bias, after recurrent dropout."""
        if recurrent_mask is not None:
            h = h * recurrent_mask
        product = tf.matmul(h, recurrent)
        # bias_add: its gradient needs no shape ops (the batch size is unknown)
        return product if recurrent_bias is None else tf.nn.bias_add(product, recurrent_bias)

    input_array = tf.TensorArray(inputs.dtype, size=steps).unstack(inputs)
    # (steps, batch): one select per row of the state (see `_mix`).
    mask_array = None if mask is None else tf.TensorArray(tf.bool, size=steps).unstack(mask[..., 0])
    logit_array = tf.TensorArray(inputs.dtype, size=steps)
    # Only with return_sequences: an unwritten TensorArray in the loop
    # breaks its XLA gradient ("uninitialized list").
    arrays = [logit_array] + ([tf.TensorArray(inputs.dtype, size=steps)] if return_sequences else [])

    def body(t, *arrays_and_states):
        written, states = arrays_and_states[: len(arrays)], arrays_and_states[len(arrays) :]
        row = tf.matmul(input_array.read(t), kernel)
        read, skim, read_weight, logit = cell.fused_step(row, list(states), recurrent_part)
        real = None if mask_array is None else mask_array.read(t)
        new_states = [_mix(r, s, read_weight, previous, real) for r, s, previous in zip(read, skim, states)]
        written = [written[0].write(t, logit)] + [a.write(t, new_states[0]) for a in written[1:]]
        return (t + 1, *written, *new_states)

    loop = tf.while_loop(
        lambda t, *_: t < steps,
        body,
        (tf.constant(0), *arrays, *states),
        maximum_iterations=steps,
        # As keras.layers.RNN's loop: the input products of later steps
        # (which need no state) may run ahead of the recurrent chain.
        parallel_iterations=32,
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


def _mix(read, skim, read_weight, previous, real):
    """The new state: w_read * read + (1 - w_read) * skim where `real`
    (batch,) is true, `previous` where it is false (a padded step). A
    candidate is a tensor or a tuple of pieces joined on the last axis.

    Its gradient is written out: what TensorFlow derives for the products
    and the select, with a batch size unknown when the loop is traced,
    reduces each broadcast operand back with shape ops at every step (a
    third of the step's ops), where only the read weight needs a sum; and a
    joined candidate's gradient is cut into its pieces by one split, where
    the derived one takes an offset and a slice for each piece.
    """
    read, skim = _pieces(read), _pieces(skim)

    @tf.custom_gradient
    def mix(read_weight, previous, *pieces):
        joined_skim = _joined(pieces[len(read) :])
        difference = _joined(pieces[: len(read)]) - joined_skim
        mixed = joined_skim + read_weight * difference
        if real is not None:
            # The select of whole rows (rank-1 condition), without broadcasting.
            mixed = tf.compat.v1.where(real, mixed, previous)

        def gradient(upstream):
            to_mixed, to_previous = upstream, tf.zeros_like(upstream)
            if real is not None:
                to_mixed = tf.compat.v1.where(real, upstream, to_previous)
                to_previous = upstream - to_mixed
            to_read = read_weight * to_mixed
            to_weight = tf.reduce_sum(to_mixed * difference, axis=-1, keepdims=True)
            return (to_weight, to_previous, *_cut(to_read, read), *_cut(to_mixed - to_read, skim))

        return mixed, gradient

    return mix(read_weight, previous, *read, *skim)


def _pieces(candidate):
    return tuple(candidate) if isinstance(candidate, (tuple, list)) else (candidate,)


def _joined(pieces):
    return pieces[0] if len(pieces) == 1 else tf.concat(pieces, axis=-1)


def _cut(gradient, pieces):
    """`gradient` of a joined candidate cut into its `pieces`' widths."""
    return [gradient] if len(pieces) == 1 else tf.split(gradient, [p.shape[-1] for p in pieces], axis=-1)


def _project(cell, x):
    """(inputs, kernel, recurrent kernel, recurrent bias, Gumbel noise) of
    the loop: x_t @ kernel + h @ recurrent + recurrent bias are the
    pre-activations of step t. The inputs are (steps, batch, features + 2):
    the features, the noise over the temperature (its kernel row is one-hot
    on the cell's scaled gate column) and ones (its kernel row is the input
    bias; left out when the cell has none). The recurrent bias may be None; the noise is
    g_read - g_skim, (steps, batch, 1), float32."""
    kernel, recurrent, bias, recurrent_bias, scaled_column = cell.fused_weights()
    if cell.dropout > 0.0:
        # Keras' cells drop the same input units at every step.
        x = x * DropoutRNNCell.get_dropout_mask(cell, x[0])
    steps, batch = tf.shape(x)[0], tf.shape(x)[1]
    gumbel = tf.convert_to_tensor(cell._gumbel_noise((batch, steps, 2)), tf.float32)
    noise = tf.transpose(gumbel[..., :1] - gumbel[..., 1:], [1, 0, 2])
    inverse_temperature = 1.0 / tf.stop_gradient(tf.cast(cell.temperature, tf.float32))
    # The noise over the temperature and the bias enter through the matmul,
    # as two more input features: cheaper than adding them at every step.
    width = kernel.shape[-1]
    features = [x, tf.cast(noise * inverse_temperature, x.dtype)]
    rows = [kernel, tf.one_hot([scaled_column], width, dtype=kernel.dtype)]
    if bias is not None:
        features.append(tf.ones_like(x[..., :1]))
        rows.append(tf.reshape(bias, (1, width)))
    return tf.concat(features, axis=-1), tf.concat(rows, axis=0), recurrent, recurrent_bias, noise


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
