"""The builtin inference graph of an `LSTMAttentionQA` export (`span_qa_export`).

For one context `context_ids [1, T]` and one question `question_ids [1, J]`
(id 0 is padding in both) and, where a reading layer skims, a scalar
`threshold`: the word vectors of both (GATHER), the attention of the model
(S = w_x x_t + w_q q_j + w_xq (x_t * q_j), a_t = softmax over the
question's real words, u_t = a_t Q, g_t = [x_t; u_t; x_t * u_t]), then each
bidirectional reading layer as the stack graph runs a layer
(`stack_graph.run_layer`: the exporter's LSTM and skim emitters, the skim
gate's IF at every token, padding stepped over), and the start and end
logits of every position (padding at the model's PADDING_LOGIT).
"""

from keras_skim import contracts
from keras_skim.export.graph_builder import threshold_cut
from keras_skim.export.stack_graph import run_layer
from keras_skim.export.weights import f32
from keras_skim.models.span_qa.span_qa_answer import CONTEXT_IDS, END_LOGITS, QUESTION_IDS, START_LOGITS
from keras_skim.models.span_qa.span_qa_ops import PADDING_LOGIT


def similarity_scores(tf, w, x, q, question_ids):
    """S [T, J] = w_x x_t + w_q q_j + w_xq (x_t * q_j) (`TrilinearSimilarity`'s kernel `w` [3k]) of
    `x` [T, k] and `q` [J, k], the question's padding at PADDING_LOGIT."""
    dim = w.shape[0] // 3
    context_term = tf.matmul(x, tf.constant(f32(w[:dim, None])))
    question_term = tf.transpose(tf.matmul(q, tf.constant(f32(w[dim : 2 * dim, None]))))
    product_term = tf.matmul(x * tf.constant(f32(w[2 * dim :])), q, transpose_b=True)
    return masked(tf, context_term + question_term + product_term, tf.not_equal(question_ids, 0)[None, :])


def masked(tf, values, real):
    """`values` where `real`, PADDING_LOGIT elsewhere (`span_qa_ops.masked_logits`)."""
    real = tf.cast(real, tf.float32)
    return values * real + (1.0 - real) * PADDING_LOGIT


def _attended(tf, plan, x, q, question_ids):
    """g [T, 3e] of the context's vectors `x` [T, e] and the question's `q` [J, e]."""
    u = tf.matmul(tf.nn.softmax(similarity_scores(tf, plan.similarity, x, q, question_ids), axis=-1), q)
    return tf.concat([x, u, x * u], axis=-1)


def span_logits(tf, head, h, real):
    """[1, T] logits of the answer head (kernel, bias) on `h` [T, k], padding (`real` 0) at PADDING_LOGIT."""
    kernel, bias = head
    logits = tf.matmul(h, tf.constant(f32(kernel)))[:, 0] + tf.constant(f32(bias))
    return tf.reshape(masked(tf, logits, real), [1, -1])


def signature(tf, plan):
    """The inputs of a span export: context and question ids, and the threshold where a layer skims."""
    inputs = [
        tf.TensorSpec([1, None], tf.int32, name=CONTEXT_IDS),
        tf.TensorSpec([1, None], tf.int32, name=QUESTION_IDS),
    ]
    if plan.skims:
        inputs.append(tf.TensorSpec([], tf.float32, name=contracts.INPUT_THRESHOLD))
    return inputs


def build_module(plan):
    """A tf.Module whose `serve(context_ids, question_ids[, threshold])` runs the reader of `plan`."""
    import tensorflow as tf
    from keras import ops

    names = {(index, direction): name for index, direction, name in plan.read_mask_outputs()}
    embedding = tf.constant(f32(plan.embedding))

    @tf.function(input_signature=signature(tf, plan))
    def serve(context_ids, question_ids, threshold=None):
        ids, question = tf.reshape(context_ids, [-1]), tf.reshape(question_ids, [-1])
        length = tf.shape(ids)[0]
        cut = threshold_cut(tf, threshold) if plan.skims else None
        h = _attended(tf, plan, tf.gather(embedding, ids), tf.gather(embedding, question), question)
        result = {}
        for index, layer in enumerate(plan.layers):
            h, masks = run_layer(tf, ops, layer, (ids, length, True), h, plan.embedding, False, cut)
            result.update({names[(index, direction)]: mask for direction, mask in masks.items()})
        real = tf.not_equal(ids, 0)
        result[START_LOGITS] = span_logits(tf, plan.start, h, real)
        result[END_LOGITS] = span_logits(tf, plan.end, h, real)
        result[contracts.OUTPUT_READ_COUNT] = tf.reduce_sum(result[contracts.OUTPUT_READ_MASK], axis=1)
        return result

    module = tf.Module()
    module.serve = serve
    return module
