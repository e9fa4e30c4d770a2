"""The builtin inference graph of a `BiDAF` export (`span_qa_export`), the
signature of every span export (`span_qa_graph.signature`).

The word vectors of the context and the question through the highway
layers; the contextual reading layer over both (`stack_graph.run_layer`: the
exporter's LSTM and skim emitters, the gate's IF at every token, padding
stepped over; only the context's read masks are outputs, as the model's
counts are the context's); the attention flow (S from the trilinear
kernel, context-to-query a_t = softmax_j(S_tj), query-to-context
b = softmax_t(max_j S_tj), g = [h; u; h * u; h * (b H)]); the two modeling
layers and the output layer; start from [g; m], end from [g; m2].
"""

from keras_skim import contracts
from keras_skim.export.graph_builder import threshold_cut
from keras_skim.export.stack_graph import run_layer
from keras_skim.export.weights import f32
from keras_skim.models.span_qa.span_qa_answer import END_LOGITS, START_LOGITS
from keras_skim.models.span_qa.span_qa_graph import masked, signature, similarity_scores, span_logits


def _highway(tf, plan, x):
    for transform_kernel, transform_bias, gate_kernel, gate_bias in plan.highway:
        gate = tf.sigmoid(tf.matmul(x, tf.constant(f32(gate_kernel))) + tf.constant(f32(gate_bias)))
        transformed = tf.nn.relu(tf.matmul(x, tf.constant(f32(transform_kernel))) + tf.constant(f32(transform_bias)))
        x = gate * transformed + (1.0 - gate) * x
    return x


def _attention_flow(tf, plan, h, u, ids, question):
    """g [T, 8d] of the contextual outputs of the context `h` [T, 2d] and of the question `u` [J, 2d]."""
    scores = similarity_scores(tf, plan.similarity, h, u, question)
    attended = tf.matmul(tf.nn.softmax(scores, axis=-1), u)
    best = masked(tf, tf.reduce_max(scores, axis=-1), tf.not_equal(ids, 0))
    pooled = tf.matmul(tf.nn.softmax(best)[None, :], h)  # [1, 2d]
    return tf.concat([h, attended, h * attended, h * pooled], axis=-1)


def build_module(plan):
    """A tf.Module whose `serve(context_ids, question_ids[, threshold])` runs the BiDAF of `plan`."""
    import tensorflow as tf
    from keras import ops

    names = {(index, direction): name for index, direction, name in plan.read_mask_outputs()}
    embedding = tf.constant(f32(plan.embedding))

    @tf.function(input_signature=signature(tf, plan))
    def serve(context_ids, question_ids, threshold=None):
        ids, question = tf.reshape(context_ids, [-1]), tf.reshape(question_ids, [-1])
        context_tokens = (ids, tf.shape(ids)[0], True)
        cut = threshold_cut(tf, threshold) if plan.skims else None
        contextual, *modeling = plan.layers

        def read(layer, tokens, x):
            return run_layer(tf, ops, layer, tokens, x, plan.embedding, False, cut)

        h, found = read(contextual, context_tokens, _highway(tf, plan, tf.gather(embedding, ids)))
        u, _ = read(
            contextual, (question, tf.shape(question)[0], True), _highway(tf, plan, tf.gather(embedding, question))
        )
        g = _attention_flow(tf, plan, h, u, ids, question)
        result = {names[(0, direction)]: mask for direction, mask in found.items()}
        sequences = [g]
        for index, layer in enumerate(modeling, start=1):
            x, found = read(layer, context_tokens, sequences[-1])
            sequences.append(x)
            result.update({names[(index, direction)]: mask for direction, mask in found.items()})
        real = tf.not_equal(ids, 0)
        result[START_LOGITS] = span_logits(tf, plan.start, tf.concat([g, sequences[2]], axis=-1), real)
        result[END_LOGITS] = span_logits(tf, plan.end, tf.concat([g, sequences[3]], axis=-1), real)
        result[contracts.OUTPUT_READ_COUNT] = tf.reduce_sum(result[contracts.OUTPUT_READ_MASK], axis=1)
        return result

    module = tf.Module()
    module.serve = serve
    return module
