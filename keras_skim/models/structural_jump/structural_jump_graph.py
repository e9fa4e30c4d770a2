"""The builtin-ops inference graph of a Structural-Jump-LSTM model: a loop
that advances by the jump, so that a jumped word costs nothing and a
skipped word only the skip agent.

Graph, for one text `token_ids [1, T]` (raw tokenizer ids, punctuation
included, 0 = padding); no `threshold` input (the agents decide what is
read, so the one signature of `keras_skim.contracts` leaves it out):

* before the loop, O(T log T) vector work and nothing per word of the
  model: the kind of each token (word, separator `, ;`, sentence end
  `. ! ?`, other punctuation, padding) by comparison with the punctuation
  ids; the first word at or after each position, and the first separator
  or sentence end, and the first sentence end, by suffix minima (log2 T
  doubling steps of static shape); from them, per word position t, the raw
  position of the next visited word after each jump action:
  `targets[t] = [next word, first word after the next separator or
  sentence end, first word after the next sentence end, T]` (the offsets
  of `keras_skim.models.structural_jump.text_structure`, in raw positions);
* per visited word (a WHILE loop over raw positions that jumps): the skip
  agent, `relu(h W_h + rows[id] + previous[p])` with its word term folded
  into a [V, a] table, and the sign of `l_read - l_skip`; an `IF` whose
  read branch holds the LSTM step (the word's row gathered inside the
  branch from the branch's own constants) and the jump agent (ARG_MAX,
  the first maximum, as in the cell) and returns only h, c and the jump
  action; then `t = targets[t][a]`. The skip branch passes h and c through.
* the mask: as in `graph_builder`, the loop runs in chunks of `CHUNK` raw
  positions and records into a [CHUNK] tensor (2 = read, 1 = skipped);
  the outer loop writes each finished chunk into the [T + CHUNK] record
  once (a chunk a jump passes over entirely is never written). After the
  loop: `read_mask` in the codes of `keras_skim.contracts` (1 read, 0
  skipped, 2 jumped, 3 not a word: punctuation or padding), `read_count`,
  `visited_count`, and the Dense head on the last h.

Every tensor written inside the loop bodies has a static shape, so LiteRT
runs the WHILE without re-planning its memory at every iteration.
"""

import numpy as np

from keras_skim import contracts
from keras_skim.contracts import TOKEN_JUMPED, TOKEN_NOT_A_WORD, TOKEN_READ, TOKEN_SKIMMED
from keras_skim.export.graph_builder import CHUNK, dense_head
from keras_skim.export.weights import f32, reorder_lstm_gates
from keras_skim.models.structural_jump.structural_jump_emitter import FIRST_PREVIOUS

RECORD_SKIPPED, RECORD_READ = 1, 2  # what the loop records per visited word


def should_fold(plan):
    """Fold the LSTM's word term into a [V, 4m] table only if that does not grow the model."""
    return 4 * plan.emitter.units <= plan.embedding_dim


def _suffix_min(tf, table, length):
    """table [k, T + 1] -> its suffix minima along the last axis, by
    doubling (log2 T vector steps, static shapes)."""
    index = tf.cumsum(table[0] * 0 + 1) - 1

    def step(k, m):
        ahead = tf.gather(m, tf.minimum(index + k, length), axis=1)
        return k * 2, tf.minimum(m, ahead)

    _, table = tf.while_loop(lambda k, m: k <= length, step, (tf.constant(1), table))
    return table


def _is_in(tf, ids, values):
    if not values:
        return tf.equal(ids, -1)
    return tf.reduce_any(tf.equal(tf.expand_dims(ids, 1), tf.constant(values, tf.int32)), axis=1)


def jump_targets(tf, ids, positions, length, structure):
    """(targets [T, 4], first word position, is_word [T]) of raw ids [T]:
    the raw position of the next word to visit after each jump action from
    the word at t (T = the end of the text)."""
    separators = structure["separator_ids"]
    ends = structure["sentence_end_ids"]
    is_sub = _is_in(tf, ids, separators + ends)
    is_end = _is_in(tf, ids, ends)
    is_punctuation = _is_in(tf, ids, separators + ends + structure["other_punctuation_ids"])
    is_word = tf.logical_and(tf.not_equal(ids, 0), tf.logical_not(is_punctuation))
    beyond = positions * 0 + length
    sentinel = tf.reshape(length, [1])

    def first_at(flag):
        return tf.concat([tf.where(flag, positions, beyond), sentinel], axis=0)

    firsts = _suffix_min(tf, tf.stack([first_at(is_word), first_at(is_sub), first_at(is_end)]), length)
    word, sub, end = firsts[0], firsts[1], firsts[2]
    after = positions + 1
    targets = tf.stack(
        [
            tf.gather(word, after),
            tf.gather(word, tf.gather(sub, after)),
            tf.gather(word, tf.gather(end, after)),
            beyond,
        ],
        axis=1,
    )
    return targets, tf.gather(word, 0), is_word


def _lstm_stepper(tf, e, fold):
    """The read step of the jump emitter `e`: callable(word, previous, h, c) -> (h, c)."""
    from keras_skim.export.lstm_emitters import lstm_update

    m = e.units

    def gates(matrix):
        return f32(reorder_lstm_gates(matrix, m))

    lstm_recurrent = gates(e.lstm_recurrent)
    lstm_previous = gates(e.lstm_previous)[:, None, :]
    if fold:
        word_terms = gates(e.embedding @ e.lstm_input)[:, None, :]
    else:
        word_terms = f32(e.embedding)[:, None, :]
        lstm_kernel = np.concatenate([gates(e.lstm_input), lstm_recurrent], axis=0)

    def lstm_step(word, p, h, c):
        """The read step: its constants are made here, inside the branch
        that uses them, so they stay constants of that subgraph."""
        row = tf.gather(tf.constant(word_terms), word)
        previous = tf.gather(tf.constant(lstm_previous), p)
        if fold:
            z = tf.matmul(h, tf.constant(lstm_recurrent)) + row + previous
        else:
            z = tf.matmul(tf.concat([row, h], axis=1), tf.constant(lstm_kernel)) + previous
        return lstm_update(tf, z, c, m)

    return lstm_step


def _jump_action(tf, e, h):
    """The jump agent's action on the state `h` (0: the next word)."""
    s = tf.nn.relu(tf.matmul(h, tf.constant(f32(e.jump_kernel))) + tf.constant(f32(e.jump_bias)))
    logits = tf.matmul(s, tf.constant(f32(e.jump_head))) + tf.constant(f32(e.jump_head_bias))
    return tf.reshape(tf.argmax(logits, axis=1, output_type=tf.int32), [])


def read_outputs(tf, record, positions, is_word):
    """The signature's reading outputs: the per-token codes of the `record`
    (read, skimmed, jumped, not a word) and the read and visited counts."""
    zero = positions * 0
    not_visited = tf.where(is_word, zero + TOKEN_JUMPED, zero + TOKEN_NOT_A_WORD)
    codes = tf.where(
        tf.equal(record, RECORD_READ),
        zero + TOKEN_READ,
        tf.where(tf.equal(record, RECORD_SKIPPED), zero + TOKEN_SKIMMED, not_visited),
    )
    return {
        contracts.OUTPUT_READ_MASK: tf.reshape(codes, [1, -1]),
        contracts.OUTPUT_READ_COUNT: tf.reshape(tf.reduce_sum(tf.cast(tf.equal(record, RECORD_READ), tf.int32)), [1]),
        contracts.OUTPUT_VISITED_COUNT: tf.reshape(tf.reduce_sum(tf.cast(record > 0, tf.int32)), [1]),
    }


def text_reader(tf, plan, fold=None, speed_reading=None):
    """callable(ids [T], h, c) -> (h, c, record [T], positions, is_word): the loop
    that reads one text from the state (h, c), the previous actions READ /
    NEXT_WORD (as after a fully read word, or at a text's start), with the
    agents acting if `speed_reading` (None: as the model was saved), else
    reading every word."""
    e = plan.emitter
    structure = plan.structure
    speed_reading = e.speed_reading if speed_reading is None else bool(speed_reading)
    lstm_step = _lstm_stepper(tf, e, should_fold(plan) if fold is None else bool(fold))
    skip_rows = f32(e.skip_rows)[:, None, :]
    skip_previous = f32(e.skip_previous)[:, None, :]
    chunk_zeros = tf.zeros([CHUNK], tf.int32)

    def read(ids, h, c):
        length = tf.shape(ids)[0]
        # Static-shape positions (not RANGE with a runtime size): see graph_builder.
        positions = tf.cumsum(ids * 0 + 1) - 1
        targets, start, is_word = jump_targets(tf, ids, positions, length, structure)

        def token_body(t, p, h, c, chunk, offset):
            word = tf.gather(ids, t)
            if speed_reading:
                s = tf.matmul(h, tf.constant(f32(e.skip_recurrent)))
                s = tf.nn.relu(s + tf.gather(tf.constant(skip_rows), word) + tf.gather(tf.constant(skip_previous), p))
                gate = tf.matmul(s, tf.constant(f32(e.skip_head[:, None]))) + tf.constant(f32([e.skip_head_bias]))
                read = tf.reshape(gate, []) > 0.0  # a tie skips, as in the cell

                def read_branch():
                    h2, c2 = lstm_step(word, p, h, c)
                    return h2, c2, _jump_action(tf, e, h2)

                def skip_branch():
                    return tf.identity(h), tf.identity(c), tf.constant(0)

                h, c, action = tf.cond(read, read_branch, skip_branch)
                read = tf.cast(read, tf.int32)
            else:  # full read: every word is read and followed by the next one
                h, c = lstm_step(word, p, h, c)
                action, read = tf.constant(0), tf.constant(1)
            record = tf.reshape(read + RECORD_SKIPPED, [1])
            chunk = xla_dynamic_update_slice(chunk, record, tf.reshape(t - offset, [1]))
            t = tf.gather(tf.gather(targets, t), action)
            return t, action + read, h, c, chunk, offset

        def chunk_body(t, p, h, c, record):
            offset = (t // CHUNK) * CHUNK
            stop = tf.minimum(offset + CHUNK, length)
            t, p, h, c, chunk, _ = tf.while_loop(lambda t, *_: t < stop, token_body, (t, p, h, c, chunk_zeros, offset))
            record = xla_dynamic_update_slice(record, chunk, tf.reshape(offset, [1]))
            return t, p, h, c, record

        record0 = tf.concat([positions * 0, chunk_zeros], axis=0)  # [T + CHUNK]
        _, _, h, c, record = tf.while_loop(
            lambda t, *_: t < length, chunk_body, (start, tf.constant(FIRST_PREVIOUS), h, c, record0)
        )
        return h, c, record[:length], positions, is_word

    return read


def build_module(plan, fold=None):
    """A tf.Module whose `serve(token_ids)` is the inference graph."""
    import tensorflow as tf

    read = text_reader(tf, plan, fold)
    zeros = tf.constant(np.zeros((1, plan.emitter.units), np.float32))

    # No `threshold` input: the agents decide what is read (`keras_skim.model_kinds`).
    @tf.function(input_signature=[tf.TensorSpec([1, None], tf.int32, name=contracts.INPUT_TOKEN_IDS)])
    def serve(token_ids):
        h, _, record, positions, is_word = read(tf.reshape(token_ids, [-1]), zeros, zeros)
        logits = dense_head(tf, plan, h)
        return {contracts.OUTPUT_LOGITS: logits, **read_outputs(tf, record, positions, is_word)}

    module = tf.Module()
    module.serve = serve
    return module


def xla_dynamic_update_slice(operand, update, start):
    """DYNAMIC_UPDATE_SLICE (static output shape, unlike a scatter); with the
    TensorFlow backend `keras.ops.slice_update` is that op."""
    from keras import ops

    return ops.slice_update(operand, start, update)
