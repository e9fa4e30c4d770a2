"""Builds the inference graph of a `ModelPlan` as a `tf.function` and
converts it to a TFLite flatbuffer with builtin ops only.

Graph, for one sequence `token_ids [1, T]` and, for a skim cell only, a
scalar `threshold` (the one signature of `keras_skim.contracts`):

* before the loop: one GATHER of precomputed rows per sequence. When the
  projection is not wider than the embedding, the embedding and every input
  projection (big cell, small cell, gate) are folded into one table
  `E @ W + b`; otherwise GATHER the embedding and one FULLY_CONNECTED over
  all tokens. The threshold becomes `cut = log(t) - log(1 - t)` (-inf at
  0, +inf at >= 1) once (`keras_skim.contracts.THRESHOLD_RULE`). When the
  model's embedding masks id 0, a table `next[t]` (the next position after
  t that is not padding, by a log-step suffix minimum) lets the loop step
  over padding exactly as Keras' mask does (`contracts.PADDING_RULE`).
* per token (a WHILE loop): GATHER the token's row, one FULLY_CONNECTED of
  the state with the small cell's and the gate's recurrent weights (a skim
  cell's gate value is `l_read - l_skim`), a comparison with `cut` and an
  `IF` that holds only the read step (weights as constants) and returns only
  the fixed-size state. The skim update (small cell, O(d d')) runs
  unconditionally in the body and the IF's else branch passes it through. A
  plain LSTM/GRU runs the read step on every token with no `IF`.
* the read mask: LiteRT's WHILE copies its loop variables at every
  iteration, so a [T] mask carried through the token loop would cost O(T)
  per token (quadratic in T). The token loop runs in chunks of `CHUNK`
  tokens inside an outer loop: it records its decisions into a [CHUNK] mask
  (DYNAMIC_UPDATE_SLICE), and the outer loop writes each finished chunk into
  the [T + CHUNK] mask once, so the cost per token does not grow with T.
* after the loop: the Dense head (pre-activation logits), the read mask and
  the read count.
"""

import numpy as np

from keras_skim import contracts
from keras_skim.export.weights import f32

CHUNK = 128


def should_fold(plan):
    """Fold the embedding into the projection tables only if that does not grow the model."""
    pre, read = plan.emitter.input_projections()
    width = read[0].shape[1] + (pre[0].shape[1] if pre else 0)
    return width <= plan.embedding_dim


def threshold_cut(tf, threshold):
    """float32 cut of the read rule: read iff gate >= cut. The rule's
    reference is `keras_skim.contracts.threshold_cut`; the tests hold this
    one (and the C++ op's) against it."""
    inf = tf.constant(np.inf, tf.float32)
    logit = tf.math.log(threshold) - tf.math.log(1.0 - threshold)
    return tf.where(threshold <= 0.0, -inf, tf.where(threshold >= 1.0, inf, logit))


def next_positions(tf, ids, positions, length):
    """[T] table: the first position after t whose id is not padding (T if none),
    and the first such position overall. Static shapes only: a suffix minimum
    by doubling, log2(T) vectorised steps."""
    real = tf.where(tf.not_equal(ids, 0), positions, positions * 0 + length)
    suffix = tf.concat([real, tf.reshape(length, [1])], axis=0)  # [T + 1]
    index = tf.concat([positions, tf.reshape(length, [1])], axis=0)

    def step(k, m):
        ahead = tf.gather(m, tf.minimum(index + k, length))
        return k * 2, tf.minimum(m, ahead)

    _, suffix = tf.while_loop(lambda k, m: k <= length, step, (tf.constant(1), suffix))
    return suffix[1:], suffix[0]


def dense_head(tf, plan, h):
    """The Dense head on `h` [1, d]: pre-activation logits (the last activation is the reader's)."""
    x = h
    for index, (kernel, bias, activation) in enumerate(plan.head):
        x = tf.matmul(x, tf.constant(f32(kernel))) + tf.constant(f32(bias))
        if index < len(plan.head) - 1 and activation != "linear":
            x = {"relu": tf.nn.relu, "tanh": tf.tanh, "sigmoid": tf.sigmoid}[activation](x)
    return x


def _row_reader(tf, plan, fold):
    """callable(ids, projection) -> [T, 1, k] rows of the projected embeddings of
    `ids`: gathered from the folded table `E @ W + b`, or projected after the gather."""
    embedding = plan.embedding

    def rows(ids, projection):
        kernel, bias = projection
        if fold:
            table = f32((embedding @ kernel + bias)[:, None, :])
            return tf.gather(tf.constant(table), ids)
        x = tf.gather(tf.constant(f32(embedding)), ids)
        z = tf.matmul(x, tf.constant(f32(kernel))) + tf.constant(f32(bias))
        return tf.expand_dims(z, 1)

    return rows


def _signature(tf, emitter):
    """The one signature (`keras_skim.contracts`): `threshold` only where it
    applies (a skim cell's read gate); other kinds take `token_ids` alone."""
    inputs = [tf.TensorSpec([1, None], tf.int32, name=contracts.INPUT_TOKEN_IDS)]
    if emitter.skims:
        inputs.append(tf.TensorSpec([], tf.float32, name=contracts.INPUT_THRESHOLD))
    return inputs


def token_walk(tf, ids, positions, length, padding):
    """(first position, callable(t) -> the next one): over every token, or,
    when the embedding masks id 0, over the tokens that are not padding."""
    if padding:
        following, start = next_positions(tf, ids, positions, length)

        def advance(t):
            return tf.gather(following, t)
    else:
        start = tf.constant(0)

        def advance(t):
            return t + 1

    return start, advance


def _skim_token_body(tf, emitter, rows, cut, advance, n_state):
    """The token loop's body of a skim cell: the gate, the skim update, the
    read step in an IF, and the decision recorded into the chunk's mask.
    `rows`: (pre rows, read rows) of the sequence."""
    from keras import ops

    pre_rows, read_rows = rows

    def token_body(t, *loop):
        state, chunk, offset = list(loop[:n_state]), loop[n_state], loop[n_state + 1]
        gate, carry = emitter.pre_step(state, tf.gather(pre_rows, t))
        # Gathered outside the IF: tensors captured by a branch are
        # copied into it at every call, so only this row is passed in.
        read_row = tf.gather(read_rows, t)
        read = gate >= cut
        # The cheap skim update runs unconditionally in the body; the IF
        # only holds the read step and returns the fixed-size state (ops
        # inside an IF branch cost several times more than in the body).
        skimmed = emitter.skim_step(state, carry)

        def read_branch():
            return tuple(emitter.read_step(state, read_row, carry))

        def skim_branch():
            return tuple(tf.identity(s) for s in skimmed)

        out = tf.cond(read, read_branch, skim_branch)
        # DYNAMIC_UPDATE_SLICE (static output shape, unlike a scatter)
        chunk = ops.slice_update(chunk, tf.reshape(t - offset, [1]), tf.reshape(tf.cast(read, tf.int32), [1]))
        return (advance(t), *out, chunk, offset)

    return token_body


def build_module(plan, fold=None):
    """A tf.Module whose `serve(token_ids, threshold)` is the inference graph."""
    import tensorflow as tf
    from keras import ops

    emitter = plan.emitter
    fold = should_fold(plan) if fold is None else bool(fold)
    pre_proj, read_proj = emitter.input_projections()
    padding = plan.padding_id is not None
    rows = _row_reader(tf, plan, fold)
    init = [tf.constant(s) for s in emitter.initial_state()]
    n_state = len(init)
    chunk_zeros = tf.zeros([CHUNK], tf.int32)

    @tf.function(input_signature=_signature(tf, emitter))
    def serve(token_ids, threshold=None):
        ids = tf.reshape(token_ids, [-1])
        length = tf.shape(ids)[0]
        read_rows = rows(ids, read_proj)
        pre_rows = rows(ids, pre_proj) if emitter.skims else None
        # Static-shape (not FILL/ONE_HOT with a runtime size) so that the WHILE
        # bodies have no dynamic tensors: a dynamic tensor anywhere in a body
        # makes LiteRT re-plan the body's memory on every iteration.
        positions = tf.cumsum(ids * 0 + 1) - 1
        start, advance = token_walk(tf, ids, positions, length, padding)
        if not emitter.skims:

            def plain_body(t, *state):
                new = emitter.read_step(list(state), tf.gather(read_rows, t), ())
                return (advance(t), *new)

            loop = tf.while_loop(lambda t, *_: t < length, plain_body, (start, *init))
            state = list(loop[1:])
            mask = tf.cast(tf.not_equal(ids, 0), tf.int32) if padding else positions * 0 + 1
        else:
            cut = threshold_cut(tf, threshold)
            token_body = _skim_token_body(tf, emitter, (pre_rows, read_rows), cut, advance, n_state)

            def chunk_body(t, *loop):
                state, mask = list(loop[:n_state]), loop[n_state]
                offset = (t // CHUNK) * CHUNK
                stop = tf.minimum(offset + CHUNK, length)
                inner = tf.while_loop(lambda t, *_: t < stop, token_body, (t, *state, chunk_zeros, offset))
                t, state, chunk = inner[0], list(inner[1 : 1 + n_state]), inner[1 + n_state]
                mask = ops.slice_update(mask, tf.reshape(offset, [1]), chunk)
                return (t, *state, mask)

            # [T + CHUNK]: every chunk, the last one too, fits without clamping.
            mask0 = tf.concat([positions * 0, chunk_zeros], axis=0)
            loop = tf.while_loop(lambda t, *_: t < length, chunk_body, (start, *init, mask0))
            state, mask = list(loop[1 : 1 + n_state]), loop[1 + n_state][:length]
        logits = dense_head(tf, plan, emitter.output(state))
        read_mask = tf.reshape(mask, [1, -1])
        return {
            contracts.OUTPUT_LOGITS: logits,
            contracts.OUTPUT_READ_MASK: read_mask,
            contracts.OUTPUT_READ_COUNT: tf.reduce_sum(read_mask, axis=1),
        }

    module = tf.Module()
    module.serve = serve
    return module


def convert(module, allow_select_ops=False, quantize=None):
    """TFLite flatbuffer bytes of `module.serve`, signature `serving_default`.

    `quantize="int8"`: the converter's dynamic-range quantization (int8
    constant weights, float activations)."""
    import tensorflow as tf

    if quantize not in (None, "int8"):
        raise ValueError(f"quantize must be None or 'int8'; got {quantize!r}")
    concrete = module.serve.get_concrete_function()
    converter = tf.lite.TFLiteConverter.from_concrete_functions([concrete], module)
    ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    if allow_select_ops:
        ops.append(tf.lite.OpsSet.SELECT_TF_OPS)
    converter.target_spec.supported_ops = ops
    if quantize == "int8":
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
    return converter.convert()
