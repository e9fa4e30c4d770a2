"""SQuAD v1.1 span-extraction data: from a SQuAD-format JSON file (own data)
or through tfds (`squad`, where it is installed and the web is reachable),
tokenized with character offsets so that a predicted token span maps back to
the exact context text.

A SQuAD-format file is `{"version": ..., "data": [{"title": ..., "paragraphs":
[{"context": ..., "qas": [{"id": ..., "question": ..., "answers": [{"text":
..., "answer_start": ...}]}]}]}]}` (the official v1.1 files, and what
`keras_skim.datasets.cloze_to_squad` writes). Tokens follow the saved
tokenizer's rules (`keras_skim.datasets.tokenizer`).
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import re
import string

from keras_skim.datasets.errors import DatasetUnavailableError, DataSourceError, describe_failure
from keras_skim.datasets.tokenizer import TOKEN_PATTERN

# The tokenizer's rules (ASCII lower case, then TOKEN_PATTERN), with each token's place kept.
_TOKEN = re.compile(TOKEN_PATTERN)
_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


@dataclasses.dataclass(frozen=True)
class SquadExample:
    """One question on one context.

    Attributes:
        id: The question's id.
        context: The paragraph.
        question: The question.
        answers: The ground-truth answer texts (several in dev sets).
        answer_starts: Their character offsets in `context`, in the same order.
    """

    id: str
    context: str
    question: str
    answers: tuple
    answer_starts: tuple


def tokens_with_offsets(text):
    """[(token, start, end)]: the tokenizer's tokens of `text` with the
    characters `text[start:end]` each came from (ASCII lower-casing keeps
    every character's place)."""
    return [(match.group(), match.start(), match.end()) for match in _TOKEN.finditer(text.translate(_LOWER))]


def answer_token_span(offsets, answer_start, answer_text):
    """(first token, last token) that cover the answer's characters
    `[answer_start, answer_start + len(answer_text))`; None if no token does.

    Args:
        offsets: `[(token, start, end)]` of the context (`tokens_with_offsets`).
        answer_start: The answer's first character in the context.
        answer_text: The answer's text.
    """
    answer_end = answer_start + len(answer_text)
    inside = [i for i, (_, start, end) in enumerate(offsets) if start < answer_end and end > answer_start]
    return (inside[0], inside[-1]) if inside else None


def span_text(context, offsets, first, last):
    """The context's characters from token `first`'s start to token `last`'s end."""
    return context[offsets[first][1] : offsets[last][2]]


def read_squad_file(path):
    """The `SquadExample`s of a SQuAD-format JSON file, in file order.

    Raises:
        DataSourceError: a missing or unreadable file, or one not in SQuAD
            format (one line naming the file and what is wrong).
    """
    path = pathlib.Path(path)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise DataSourceError(f"{path}: cannot read a SQuAD-format JSON file ({describe_failure(err)})") from None
    try:
        return list(_examples(document))
    except (KeyError, TypeError, AttributeError, ValueError) as err:
        raise DataSourceError(
            f"{path}: not in SQuAD format (data[].paragraphs[].context and qas[].question/answers "
            f"expected; {describe_failure(err)})"
        ) from None


def _examples(document):
    for article in document["data"]:
        for paragraph in article["paragraphs"]:
            context = paragraph["context"]
            if not isinstance(context, str):
                raise ValueError("a context is not a string")
            for qa in paragraph["qas"]:
                answers = qa.get("answers", [])
                texts = tuple(str(answer["text"]) for answer in answers)
                starts = tuple(int(answer["answer_start"]) for answer in answers)
                yield SquadExample(str(qa["id"]), context, str(qa["question"]), texts, starts)


def load_squad_tfds(split="train"):
    """The `SquadExample`s of tfds' `squad` (SQuAD v1.1) `split` ("train" or
    "validation"); downloads it on first use.

    Raises:
        DatasetUnavailableError: tensorflow-datasets is not installed or
            cannot fetch it (no web).
    """
    try:
        import tensorflow_datasets as tfds

        rows = tfds.as_numpy(tfds.load("squad", split=split))
        return [_tfds_example(row) for row in rows]
    except Exception as err:  # noqa: BLE001 - any failure of tfds is "not reachable" to the user
        raise DatasetUnavailableError(f"squad ({split})", [("tfds squad", describe_failure(err))]) from None


def _tfds_example(row):
    def text(value):
        return value.decode("utf-8") if isinstance(value, bytes) else str(value)

    answers = row["answers"]
    return SquadExample(
        text(row["id"]),
        text(row["context"]),
        text(row["question"]),
        tuple(text(value) for value in answers["text"]),
        tuple(int(value) for value in answers["answer_start"]),
    )
