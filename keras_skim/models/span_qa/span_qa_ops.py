"""Tensor helpers the span readers share: masked softmax and masked logits."""

from keras import ops

# Added to the logit of a padding position: far below any real logit, still finite in float32 (no NaN
# from a row that is all padding).
PADDING_LOGIT = -1e9


def masked_logits(logits, mask):
    """`logits` where `mask` is true, `PADDING_LOGIT` where it is false
    (same shape, or `mask` broadcast over the leading axes)."""
    mask = ops.cast(mask, logits.dtype)
    return logits * mask + (1.0 - mask) * PADDING_LOGIT


def masked_softmax(logits, mask, axis=-1):
    """softmax of `logits` over `axis` with the positions where `mask` is
    false left out (their probability is 0)."""
    return ops.softmax(masked_logits(logits, mask), axis=axis)


def attend(similarity, question, question_mask):
    """u_t = sum_j a_tj q_j with a_t = softmax_j(S_tj) over the question's
    real words: `similarity` `(B, T, J)`, `question` `(B, J, D)`,
    `question_mask` `(B, J)` -> `(B, T, D)`."""
    weights = masked_softmax(similarity, ops.expand_dims(question_mask, 1), axis=-1)
    return ops.matmul(weights, question)
