"""Builds the inference graph of a `ModelPlan` as a `tf.function` and
converts it to a TFLite flatbuffer with builtin ops only.

Graph, for one sequence `token_ids [1, T]` and a scalar `threshold`:

* before the loop: one GATHER of precomputed rows per sequence. When the
  projection is not wider than the embedding, the embedding and every input
  projection (big cell, small cell, gate) are folded into one table
  `E @ W + b`; otherwise GATHER the embedding and one FULLY_CONNECTED over
  all tokens. The threshold becomes `cut = logit(threshold)` (-inf at 0,
  +inf at >= 1) once.
* per token (a WHILE loop): GATHER the token's row, one FULLY_CONNECTED of
  the state with the small cell's and the gate's recurrent weights (a skim
  cell's gate value is `l_read - l_skim`), a comparison with `cut` and an
  `IF` that holds only the read step (weights as constants) and returns only
  the fixed-size state. The skim update (small cell, O(d d')) runs
  unconditionally in the body and the IF's else branch passes it through; the
  decision is recorded outside the IF into a static-shape [T] bool mask
  (EQUAL + SELECT_V2), so the WHILE body has no dynamic tensor. A plain
  LSTM/GRU runs the read step on every token with no `IF`.
* after the loop: the Dense head (pre-activation logits), the read mask and
  the read count.
"""
import numpy as np

from keras_skim.export.weights import f32

SIGNATURE_KEY = "serving_default"


def should_fold(plan):
    """Fold the embedding into the projection tables only if that does not grow the model."""
    pre, read = plan.emitter.input_projections()
    width = read[0].shape[1] + (pre[0].shape[1] if pre else 0)
    return width <= plan.embedding_dim


def build_module(plan, fold=None):
    """A tf.Module whose `serve(token_ids, threshold)` is the inference graph."""
    import tensorflow as tf

    emitter = plan.emitter
    fold = should_fold(plan) if fold is None else bool(fold)
    pre_proj, read_proj = emitter.input_projections()
    embedding = plan.embedding

    def rows(ids, projection):
        """[T, 1, k] rows of the projected embeddings of `ids`."""
        kernel, bias = projection
        if fold:
            table = f32((embedding @ kernel + bias)[:, None, :])
            return tf.gather(tf.constant(table), ids)
        x = tf.gather(tf.constant(f32(embedding)), ids)
        z = tf.matmul(x, tf.constant(f32(kernel))) + tf.constant(f32(bias))
        return tf.expand_dims(z, 1)

    def head(h):
        x = h
        for index, (kernel, bias, activation) in enumerate(plan.head):
            x = tf.matmul(x, tf.constant(f32(kernel))) + tf.constant(f32(bias))
            if index < len(plan.head) - 1 and activation != "linear":
                x = {"relu": tf.nn.relu, "tanh": tf.tanh, "sigmoid": tf.sigmoid}[activation](x)
        return x

    init = [tf.constant(s) for s in emitter.initial_state()]
    n_state = len(init)

    @tf.function(
        input_signature=[
            tf.TensorSpec([1, None], tf.int32, name="token_ids"),
            tf.TensorSpec([], tf.float32, name="threshold"),
        ]
    )
    def serve(token_ids, threshold):
        ids = tf.reshape(token_ids, [-1])
        length = tf.shape(ids)[0]
        read_rows = rows(ids, read_proj)
        pre_rows = rows(ids, pre_proj) if emitter.skims else None
        # Static-shape (not FILL/ONE_HOT with a runtime size) so that the WHILE
        # body has no dynamic tensors: a dynamic tensor anywhere in the body
        # makes LiteRT re-plan the body's memory on every iteration.
        pos = tf.cumsum(ids * 0 + 1) - 1
        mask0 = tf.less(pos, 0)
        if emitter.skims:
            inf = tf.constant(np.inf, tf.float32)
            safe = tf.clip_by_value(threshold, 1e-30, 1.0 - 1e-7)
            logit = tf.math.log(safe) - tf.math.log(1.0 - safe)
            cut = tf.where(threshold <= 0.0, -inf, tf.where(threshold >= 1.0, inf, logit))

        def cond(t, *rest):
            return t < length

        def body(t, *loop):
            state, mask = list(loop[:n_state]), loop[n_state]
            if not emitter.skims:
                new = emitter.read_step(state, tf.gather(read_rows, t), ())
                return (t + 1, *new, mask)
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
            # The decision is recorded outside the IF (EQUAL + SELECT_V2).
            mask = tf.where(tf.equal(pos, t), read, mask)
            return (t + 1, *out, mask)

        loop = tf.while_loop(cond, body, (tf.constant(0), *init, mask0))
        state, mask = list(loop[1 : 1 + n_state]), loop[1 + n_state]
        if not emitter.skims:
            mask = tf.greater_equal(pos, 0)
        logits = head(emitter.output(state))
        read_mask = tf.cast(tf.reshape(mask, [1, -1]), tf.int32)
        return {
            "logits": logits,
            "read_mask": read_mask,
            "read_count": tf.reduce_sum(read_mask, axis=1),
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
