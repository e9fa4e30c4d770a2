"""SQuAD examples as the span readers' arrays: token ids of context and
question, the answer's first and last context token, and the character
offsets that map a predicted span back to the context's text."""

import dataclasses

import numpy as np

from keras_skim.datasets.squad import answer_token_span, tokens_with_offsets

# The longest question the readers take (SQuAD v1.1's questions are shorter than this in nearly all cases).
QUESTION_LENGTH = 30


@dataclasses.dataclass
class EncodedSpans:
    """Examples encoded for a span reader.

    Attributes:
        context, question: int32 `(N, T)` and `(N, J)` token ids, 0-padded.
        start, end: int32 `(N,)`: the first answer's first and last token
            (0 where it is not inside the first T tokens; see `answerable`).
        answerable: bool `(N,)`: the first answer lies in the first T tokens.
        offsets: per example, the context's `[(token, start, end)]`, cut at T.
        examples: the `SquadExample`s, in the same order.
    """

    context: np.ndarray
    question: np.ndarray
    start: np.ndarray
    end: np.ndarray
    answerable: np.ndarray
    offsets: list
    examples: list

    def subset(self, rows):
        """The examples at `rows` (an index array), in that order."""
        return EncodedSpans(
            self.context[rows],
            self.question[rows],
            self.start[rows],
            self.end[rows],
            self.answerable[rows],
            [self.offsets[i] for i in rows],
            [self.examples[i] for i in rows],
        )


def encode_spans(examples, tokenizer, context_length, question_length=QUESTION_LENGTH):
    """`EncodedSpans` of `SquadExample`s with a fitted
    `keras_skim.datasets.Tokenizer` (its ids, the same tokens as
    `tokens_with_offsets`)."""
    count = len(examples)
    context = np.zeros((count, context_length), np.int32)
    question = np.zeros((count, question_length), np.int32)
    start, end, answerable = np.zeros(count, np.int32), np.zeros(count, np.int32), np.zeros(count, bool)
    offsets = []
    for row, example in enumerate(examples):
        found = tokens_with_offsets(example.context)[:context_length]
        offsets.append(found)
        ids = tokenizer.encode_one(example.context, context_length)
        context[row, : len(ids)] = ids
        ids = tokenizer.encode_one(example.question, question_length)
        question[row, : len(ids)] = ids
        span = answer_token_span(found, example.answer_starts[0], example.answers[0]) if example.answers else None
        if span is not None and _covers(found, span, example):
            start[row], end[row], answerable[row] = span[0], span[1], True
    return EncodedSpans(context, question, start, end, answerable, offsets, list(examples))


def _covers(offsets, span, example):
    # An answer cut by the context length is not a target: its last token would be the wrong one.
    answer_end = example.answer_starts[0] + len(example.answers[0])
    return offsets[span[1]][2] >= answer_end or span[1] < len(offsets) - 1


def best_spans(start_logits, end_logits, max_answer_tokens=15):
    """The (first, last) token of the best span of each example: the pair
    with first <= last < first + `max_answer_tokens` of the largest
    start_logit[first] + end_logit[last] (padding's logits are -1e9, so a
    span never ends there while a real token is left)."""
    start_logits, end_logits = np.asarray(start_logits), np.asarray(end_logits)
    length = start_logits.shape[1]
    first, last = np.arange(length)[:, None], np.arange(length)[None, :]
    allowed = (last >= first) & (last < first + max_answer_tokens)
    scores = np.where(allowed, start_logits[:, :, None] + end_logits[:, None, :], -np.inf)
    flat = scores.reshape(len(scores), -1).argmax(axis=1)
    return np.stack([flat // length, flat % length], axis=1)
