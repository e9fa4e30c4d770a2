"""The parity check's Keras reference of a Structural-Jump-LSTM model
(asked through `structural_jump_exporter`): its greedy pass, as per-token
codes (`contracts.TOKEN_*`) beside its logits."""

import numpy as np


def token_codes(trace, word_count, positions, length):
    """The per-token codes (`contracts.TOKEN_*`) of one text from a
    Structural-Jump-LSTM's greedy pass: its trace over the word stream, its
    word count and the raw position of each word."""
    from keras_skim.contracts import TOKEN_JUMPED, TOKEN_NOT_A_WORD, TOKEN_READ, TOKEN_SKIMMED
    from keras_skim.models.structural_jump.structural_jump_lstm_cell import TRACE_ACTIVE, TRACE_READ

    codes = np.full((length,), TOKEN_NOT_A_WORD, np.int32)
    n = int(word_count)
    active = trace[:n, TRACE_ACTIVE] > 0.5
    read = trace[:n, TRACE_READ] > 0.5
    codes[positions[:n]] = np.where(read, TOKEN_READ, np.where(active, TOKEN_SKIMMED, TOKEN_JUMPED))
    return codes


def structural_jump_reference(model):
    """A function ids [1, T] -> (logits [1, k], token codes [T]) of a
    Structural-Jump-LSTM model's greedy pass (`training=False`): the
    model's own call, traced once for any length."""
    import tensorflow as tf

    @tf.function(input_signature=[tf.TensorSpec([1, None], tf.int32)], reduce_retracing=True)
    def run(ids):
        out = model(ids, training=False)
        _, _, positions = model.text_structure(ids)
        return out["logits"], out["trace"], out["word_count"], positions

    def reference(ids):
        logits, trace, word_count, positions = (np.asarray(v) for v in run(tf.constant(ids, tf.int32)))
        return logits, token_codes(trace[0], word_count[0], positions[0], np.asarray(ids).shape[1])

    return reference
