"""The builtin inference graph of a stack of recurrent layers (`ModelPlan.stacked`):
`RNN` and `Bidirectional(RNN)` layers over any cell the emitter registry
knows, every layer but the last returning its sequence.

Per layer and direction one token loop, the loop of `graph_builder` (the
read/skim `IF` of a skim cell, padding stepped over by the `next` table,
the decisions recorded chunk by chunk), which also records the cell's output
`h` at every position when the layer returns sequences: into a
[SEQUENCE_CHUNK, d] buffer in the token loop, written into the [T + chunk,
d] sequence once per chunk by the outer loop (LiteRT's WHILE copies its loop
variables at every iteration, so the per-token cost stays independent of T).

* layer 0 gathers its precomputed rows from the embedding (folded tables as
  in `graph_builder`); a later layer projects the whole sequence of the
  layer before it with one FULLY_CONNECTED per projection before its loop.
* the backward direction of a Bidirectional layer runs the same loop on the
  reversed tokens (REVERSE_V2 of the ids and of the layer's input), so it
  skips padding as Keras' `go_backwards` with a mask does; its decisions and
  outputs are reversed back into token order, and the two directions merge
  as the layer's `merge_mode` says (concat, sum, ave, mul).
* outputs: `logits`, `read_mask` and `read_count` of layer 0's forward
  direction (the single-layer signature), and one int32 [1, T] mask per
  other layer and direction, named by `metadata_record.read_mask_name`.
"""

from keras_skim import contracts
from keras_skim.export.graph_builder import CHUNK, dense_head, threshold_cut, token_walk
from keras_skim.export.weights import f32

# Tokens per chunk of a loop that records outputs: its [chunk, d] buffer is
# copied at every token, so it is smaller than the mask's chunk.
SEQUENCE_CHUNK = 32


def _fold(emitter, embedding_dim):
    """Fold the embedding into a layer-0 direction's tables only if that does not grow them."""
    pre, read = emitter.input_projections()
    return read[0].shape[1] + (pre[0].shape[1] if pre else 0) <= embedding_dim


class Direction:
    """One direction of one layer: its emitter and the rows its loop gathers."""

    def __init__(self, tf, emitter, ids, x, embedding, fold):
        self.tf, self.emitter = tf, emitter
        pre, read = emitter.input_projections()
        self.read_rows = self._rows(ids, x, embedding, read, fold)
        self.pre_rows = self._rows(ids, x, embedding, pre, fold) if emitter.skims else None

    def _rows(self, ids, x, embedding, projection, fold):
        """[T, 1, k] rows of the projection of every position's input."""
        tf = self.tf
        kernel, bias = projection
        if x is None and fold:
            return tf.gather(tf.constant(f32((embedding @ kernel + bias)[:, None, :])), ids)
        if x is None:
            x = tf.gather(tf.constant(f32(embedding)), ids)
        return tf.expand_dims(tf.matmul(x, tf.constant(f32(kernel))) + tf.constant(f32(bias)), 1)


def run_direction(tf, ops, direction, ids, length, padding, cut, sequences):
    """(final state, decisions int32 [T], outputs [T, d] or None) of one
    direction over `ids` in its own order."""
    emitter = direction.emitter
    positions = tf.cumsum(ids * 0 + 1) - 1
    start, advance = token_walk(tf, ids, positions, length, padding)
    init = [tf.constant(s) for s in emitter.initial_state()]
    n_state = len(init)
    if not emitter.skims and not sequences:
        loop = tf.while_loop(
            lambda t, *_: t < length,
            lambda t, *state: (advance(t), *emitter.read_step(list(state), tf.gather(direction.read_rows, t), ())),
            (start, *init),
        )
        return list(loop[1:]), _all_read(tf, ids, positions, padding, loop[0]), None
    chunk = SEQUENCE_CHUNK if sequences else CHUNK
    # Zero buffers of static shape (no FILL with a runtime size inside a body).
    mask_zeros = tf.zeros([chunk], tf.int32)
    out_zeros = tf.zeros([chunk, emitter.units], tf.float32)

    def step(t, state):
        """(new state, read as int32 [1]) at position t."""
        read_row = tf.gather(direction.read_rows, t)
        if not emitter.skims:
            return list(emitter.read_step(state, read_row, ())), tf.ones([1], tf.int32)
        gate, carry = emitter.pre_step(state, tf.gather(direction.pre_rows, t))
        read = gate >= cut
        skimmed = emitter.skim_step(state, carry)
        new = tf.cond(
            read,
            lambda: tuple(emitter.read_step(state, read_row, carry)),
            lambda: tuple(tf.identity(s) for s in skimmed),
        )
        return list(new), tf.reshape(tf.cast(read, tf.int32), [1])

    def token_body(t, *loop):
        state, marks, outs, offset = list(loop[:n_state]), loop[n_state], loop[n_state + 1], loop[n_state + 2]
        state, read = step(t, state)
        at = tf.reshape(t - offset, [1])
        marks = ops.slice_update(marks, at, read)
        if sequences:
            outs = ops.slice_update(outs, tf.concat([at, [0]], axis=0), emitter.output(state))
        return (advance(t), *state, marks, outs, offset)

    def chunk_body(t, *loop):
        state, mask, seq = list(loop[:n_state]), loop[n_state], loop[n_state + 1]
        offset = (t // chunk) * chunk
        stop = tf.minimum(offset + chunk, length)
        inner = tf.while_loop(lambda t, *_: t < stop, token_body, (t, *state, mask_zeros, out_zeros, offset))
        t, state = inner[0], list(inner[1 : 1 + n_state])
        mask = ops.slice_update(mask, tf.reshape(offset, [1]), inner[1 + n_state])
        if sequences:
            seq = ops.slice_update(seq, tf.stack([offset, 0]), inner[2 + n_state])
        return (t, *state, mask, seq)

    mask0 = tf.concat([positions * 0, mask_zeros], axis=0)  # [T + chunk]: the last chunk fits
    seq0 = tf.zeros([1, emitter.units], tf.float32)  # unused without sequences
    if sequences:  # [T + chunk, d] zeros, its shape from the input's (a broadcast, not a FILL)
        seq0 = tf.concat(
            [tf.cast(tf.expand_dims(positions, 1), tf.float32) * tf.zeros([1, emitter.units]), out_zeros], 0
        )
    loop = tf.while_loop(lambda t, *_: t < length, chunk_body, (start, *init, mask0, seq0))
    state, mask, seq = list(loop[1 : 1 + n_state]), loop[1 + n_state][:length], loop[2 + n_state]
    if not emitter.skims:
        mask = _all_read(tf, ids, positions, padding, loop[0])
    return state, mask, (seq[:length] if sequences else None)


def _all_read(tf, ids, positions, padding, stop):
    """A plain cell's decisions: every token read, padding not. Plus
    min(stop, 0) = 0 of this direction's own loop end (`stop` >= 0): two plain
    directions' masks would otherwise be one tensor after the converter
    merges equal subgraphs, and a signature may not name a tensor twice."""
    mask = tf.cast(tf.not_equal(ids, 0), tf.int32) if padding else positions * 0 + 1
    return mask + tf.minimum(stop, 0)


def merge_directions(tf, outputs, mode):
    if len(outputs) == 1:
        return outputs[0]
    forward, backward = outputs
    if mode == "concat":
        return tf.concat([forward, backward], axis=-1)
    if mode == "sum":
        return forward + backward
    if mode == "ave":
        return (forward + backward) / 2.0
    return forward * backward  # "mul": `plan` admits no other mode


def run_layer(tf, ops, layer, tokens, x, embedding, fold, cut):
    """(the layer's merged output, {direction: read mask int32 [1, T]}) of
    one planned recurrent layer. `tokens`: (ids [T], T, whether id 0 is
    padding); `x`: the layer's input [T, k], or None for a layer on the
    `embedding` (its tables folded as `fold` says, None: where that does not
    grow them); `cut`: the threshold's cut (None without a skim cell)."""
    ids, length, padding = tokens
    sequences = layer.return_sequences
    outputs, masks = [], {}
    for direction, emitter in zip(layer.directions, layer.emitters):
        backward = direction == "backward"
        own_ids = tf.reverse(ids, [0]) if backward else ids
        own_x = None if x is None else (tf.reverse(x, [0]) if backward else x)
        folded = _fold(emitter, embedding.shape[1]) if fold is None else bool(fold)
        rows = Direction(tf, emitter, own_ids, own_x, embedding, folded)
        state, mask, seq = run_direction(tf, ops, rows, own_ids, length, padding, cut, sequences)
        if backward:  # back into token order
            mask = tf.reverse(mask, [0])
            seq = None if seq is None else tf.reverse(seq, [0])
        masks[direction] = tf.reshape(mask, [1, -1])
        outputs.append(seq if sequences else emitter.output(state))
    return merge_directions(tf, outputs, layer.merge_mode), masks


def build_module(plan, fold=None):
    """A tf.Module whose `serve(token_ids[, threshold])` runs the stack of `plan`."""
    import tensorflow as tf
    from keras import ops

    padding = plan.padding_id is not None
    skims = any(e.skims for layer in plan.layers for e in layer.emitters)
    inputs = [tf.TensorSpec([1, None], tf.int32, name=contracts.INPUT_TOKEN_IDS)]
    if skims:
        inputs.append(tf.TensorSpec([], tf.float32, name=contracts.INPUT_THRESHOLD))
    names = {(index, direction): name for index, direction, name in plan.read_mask_outputs()}

    @tf.function(input_signature=inputs)
    def serve(token_ids, threshold=None):
        ids = tf.reshape(token_ids, [-1])
        length = tf.shape(ids)[0]
        cut = threshold_cut(tf, threshold) if skims else None
        x = None  # the layer's input sequence [T, k]; None: layer 0 reads the embedding
        masks = {}
        for index, layer in enumerate(plan.layers):
            x, found = run_layer(tf, ops, layer, (ids, length, padding), x, plan.embedding, fold, cut)
            masks.update({names[(index, direction)]: mask for direction, mask in found.items()})
        result = {contracts.OUTPUT_LOGITS: dense_head(tf, plan, x)}
        result.update(masks)
        result[contracts.OUTPUT_READ_COUNT] = tf.reduce_sum(masks[contracts.OUTPUT_READ_MASK], axis=1)
        return result

    module = tf.Module()
    module.serve = serve
    return module
