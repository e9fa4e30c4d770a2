"""The builtin inference graph of a `ClozeQA` export (`cloze_export`): the
reader over `token_ids [1, T]` (the query's ids, then the document's) as the
stack graph runs a layer (`stack_graph.run_layer`: the exporter's LSTM or
skim emitter, the skim gate's IF at every token, padding stepped over), its
last state projected (`W h`) and scored against the embeddings of
`candidate_ids [1, K]`: logits [1, K], read mask [1, T], read count [1]."""

from keras_skim import contracts
from keras_skim.datasets.cloze_splits import CANDIDATE_IDS
from keras_skim.export.graph_builder import threshold_cut
from keras_skim.export.stack_graph import run_layer
from keras_skim.export.weights import f32


def build_module(plan):
    """A tf.Module whose `serve(token_ids, candidate_ids[, threshold])` runs the reader of `plan`."""
    import tensorflow as tf
    from keras import ops

    inputs = [
        tf.TensorSpec([1, None], tf.int32, name=contracts.INPUT_TOKEN_IDS),
        tf.TensorSpec([1, plan.num_candidates], tf.int32, name=CANDIDATE_IDS),
    ]
    if plan.skims:
        inputs.append(tf.TensorSpec([], tf.float32, name=contracts.INPUT_THRESHOLD))
    (projection, _, _), layer = plan.head[0], plan.layers[0]

    @tf.function(input_signature=inputs)
    def serve(token_ids, candidate_ids, threshold=None):
        ids = tf.reshape(token_ids, [-1])
        cut = threshold_cut(tf, threshold) if plan.skims else None
        h, masks = run_layer(tf, ops, layer, (ids, tf.shape(ids)[0], True), None, plan.embedding, None, cut)
        projected = tf.matmul(h, tf.constant(f32(projection)))
        candidates = tf.gather(tf.constant(f32(plan.embedding)), tf.reshape(candidate_ids, [-1]))
        mask = masks["forward"]
        return {
            contracts.OUTPUT_LOGITS: tf.matmul(projected, candidates, transpose_b=True),
            contracts.OUTPUT_READ_MASK: mask,
            contracts.OUTPUT_READ_COUNT: tf.reduce_sum(mask, axis=1),
        }

    module = tf.Module()
    module.serve = serve
    return module
