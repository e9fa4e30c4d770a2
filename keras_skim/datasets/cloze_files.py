"""Cloze question sets in the Children's Book Test's text format (Hill et al., ICLR 2016).

CBT's released files (``CBTest/data/cbtest_{CN,NE,V,P}_{train,valid_2000ex,test_2500ex}.txt``) hold one
question per block of 21 numbered lines and a blank line::

    1 The first sentence of the context , tokens separated by spaces .
    ...
    20 The twentieth sentence .
    21 The query sentence with XXXXX in place of the missing word .<TAB>answer<TAB><TAB>c1|c2|...|c10

Lines 1-20 are the context, line 21 the query, its answer and its candidates (the answer among them). The
candidates are split on ``|`` with empty pieces dropped, so a file that separates them with ``|||`` reads the
same. `write_cloze_file` writes that format (single ``|``), so a set built here
(`keras_skim.datasets.cloze_builder`) is read by the same code as CBT itself.

Where the web is reachable, CBT also comes through Hugging Face ``datasets`` (``load_dataset("cbt", "CN")``,
records with ``sentences``, ``question``, ``answer``, ``options``): `load_cbt_hub` converts those records.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
from collections.abc import Iterable

# The query's placeholder for the missing word, as CBT writes it.
PLACEHOLDER = "XXXXX"
CONTEXT_SENTENCES = 20
NUM_CANDIDATES = 10


@dataclasses.dataclass(frozen=True)
class ClozeExample:
    """One cloze question.

    Attributes:
        context: The context sentences (CBT: 20), each a string of space-separated tokens.
        query: The query sentence, with `PLACEHOLDER` where the answer was.
        answer: The missing word.
        candidates: The candidate words, the answer among them.
    """

    context: tuple
    query: str
    answer: str
    candidates: tuple

    def __post_init__(self):
        if PLACEHOLDER not in self.query.split():
            raise ValueError(f"the query has no {PLACEHOLDER}: {self.query[:80]!r}")
        if self.answer not in self.candidates:
            raise ValueError(f"the answer {self.answer!r} is not among the candidates {'|'.join(self.candidates)}")

    @property
    def answer_index(self):
        """The answer's position among the candidates (the label a model predicts)."""
        return self.candidates.index(self.answer)


def parse_query_line(line):
    """(query, answer, candidates) of a block's last line, without its number.

    Raises:
        ValueError: the line does not have the query, answer and candidates fields.
    """
    fields = [field for field in line.split("\t") if field != ""]
    if len(fields) != 3:
        raise ValueError("the query line needs 'query<TAB>answer<TAB><TAB>candidates'")
    query, answer, candidates = fields
    return query.strip(), answer.strip(), tuple(c.strip() for c in candidates.split("|") if c.strip())


def _numbered(line, expected):
    number, _, text = line.partition(" ")
    if number != str(expected):
        raise ValueError(f"expected line number {expected}, found {number!r}")
    return text


def _block_example(block, context_sentences):
    context = tuple(_numbered(line, n + 1).strip() for n, line in enumerate(block[:-1]))
    query, answer, candidates = parse_query_line(_numbered(block[-1], context_sentences + 1))
    return ClozeExample(context, query, answer, candidates)


def read_cloze_file(path, limit=None, context_sentences=CONTEXT_SENTENCES):
    """Reads a CBT-format file.

    Args:
        path: The file (UTF-8).
        limit: Read at most this many questions (None: all).
        context_sentences: Context lines per question (CBT: 20).

    Returns:
        A list of `ClozeExample`.

    Raises:
        ValueError: a malformed block, naming the file and the block's first line.
        OSError: the file cannot be read.
    """
    examples, block, start = [], [], 0
    lines = pathlib.Path(path).read_text(encoding="utf-8").splitlines()
    for number, line in enumerate([*lines, ""], start=1):
        if limit is not None and len(examples) >= limit:
            break
        if line.strip():
            start = start or number
            block.append(line.rstrip("\n"))
            continue
        if not block:
            continue
        if len(block) != context_sentences + 1:
            raise ValueError(f"{path}:{start}: a question has {len(block)} lines, expected {context_sentences + 1}")
        try:
            examples.append(_block_example(block, context_sentences))
        except ValueError as err:
            raise ValueError(f"{path}:{start}: {err}") from None
        block, start = [], 0
    return examples


def format_example(example):
    """The CBT text of one example (its 21 lines and the blank line after them)."""
    lines = [f"{n} {sentence}" for n, sentence in enumerate(example.context, start=1)]
    candidates = "|".join(example.candidates)
    lines.append(f"{len(example.context) + 1} {example.query}\t{example.answer}\t\t{candidates}")
    return "\n".join(lines) + "\n\n"


def write_cloze_file(path, examples: Iterable[ClozeExample]):
    """Writes examples in CBT's format (UTF-8); returns the number written."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for example in examples:
            out.write(format_example(example))
            count += 1
    return count


def example_from_record(record):
    """A `ClozeExample` of a Hugging Face ``cbt`` record (``sentences``, ``question``, ``answer``,
    ``options``)."""
    return ClozeExample(
        tuple(s.strip() for s in record["sentences"]),
        record["question"].strip(),
        record["answer"].strip(),
        tuple(o.strip() for o in record["options"]),
    )


def load_cbt_hub(config="CN", split="train", limit=None):
    """CBT through Hugging Face ``datasets`` (needs the web and ``pip install datasets``).

    Args:
        config: ``"CN"`` (common nouns), ``"NE"`` (named entities), ``"V"`` or ``"P"``.
        split: ``"train"``, ``"validation"`` or ``"test"``.
        limit: At most this many questions.

    Returns:
        A list of `ClozeExample`; write them with `write_cloze_file` to train on them with
        ``keras-skim train --task cloze --data FILE``.
    """
    import datasets  # optional: only this path needs it

    records = datasets.load_dataset("cbt", config, split=split)
    count = len(records) if limit is None else min(limit, len(records))
    return [example_from_record(records[i]) for i in range(count)]


def cloze_path(path):
    """`path` as a `pathlib.Path` if it is an existing file, else None."""
    if isinstance(path, (str, os.PathLike)) and os.path.isfile(path):
        return pathlib.Path(path)
    return None
