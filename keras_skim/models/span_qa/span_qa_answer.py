"""A span export's answer, without TensorFlow (`SkimRunner.answer` calls
`answer_span` through `model_kinds.TASKS["squad"].answer`): the context and
the question tokenized as in training (the tokenizer's ids, the span data's
character offsets), the export run once, the best span decoded as
`keras-skim evaluate` decodes it (`span_qa_data.best_spans`)."""

import dataclasses

import numpy as np

from keras_skim.datasets.squad import span_text, tokens_with_offsets
from keras_skim.models.span_qa.span_qa_data import best_spans

CONTEXT_IDS = "context_ids"  # the export's inputs and outputs (`span_qa_graph`, which imports TensorFlow)
QUESTION_IDS = "question_ids"
START_LOGITS = "start_logits"
END_LOGITS = "end_logits"


@dataclasses.dataclass
class SpanAnswer:
    """The answer of a span export to one question.

    Attributes:
        text: The answer: the context's characters `start:end`.
        start, end: Its character offsets in the context.
        first_token, last_token: Its first and last context token.
        tokens: The context's tokens as the reader saw them (cut at the
            export's context length).
        read_masks: {(layer index, direction): int32 [T]}: 1 = the token was
            read by that layer and direction's big cell, 0 = skimmed.
        start_logits, end_logits: float32 [T].
    """

    text: str
    start: int
    end: int
    first_token: int
    last_token: int
    tokens: list
    read_masks: dict
    start_logits: np.ndarray
    end_logits: np.ndarray


def answer_span(runner, context, question, threshold=None):
    """The `SpanAnswer` of a span export (`runner`: its `SkimRunner`) to `question` on `context`.

    Raises:
        ValueError: the context or the question has no token.
    """
    task = runner.metadata.task
    offsets = tokens_with_offsets(context)[: task.get("context_length")]
    context_ids = runner.tokenizer.encode_one(context, task.get("context_length"))
    question_ids = runner.tokenizer.encode_one(question, task.get("question_length"))
    if not len(context_ids) or not len(question_ids):
        raise ValueError("the context and the question must each have a token")
    out = runner.run_inputs({CONTEXT_IDS: context_ids, QUESTION_IDS: question_ids}, threshold)
    start_logits, end_logits = out[START_LOGITS].reshape(-1), out[END_LOGITS].reshape(-1)
    first, last = (int(i) for i in best_spans(start_logits[None], end_logits[None], task["max_answer_tokens"])[0])
    return SpanAnswer(
        text=span_text(context, offsets, first, last),
        start=offsets[first][1],
        end=offsets[last][2],
        first_token=first,
        last_token=last,
        tokens=[context[begin:finish] for _, begin, finish in offsets],
        read_masks=runner.read_masks(out, len(context_ids)),
        start_logits=start_logits,
        end_logits=end_logits,
    )
