"""SQuAD-format files, token offsets and the answer span's way back to the context text (no web)."""

import json
import pathlib

import numpy as np
import pytest

from keras_skim.datasets.errors import DataSourceError
from keras_skim.datasets.squad import answer_token_span, read_squad_file, span_text, tokens_with_offsets
from keras_skim.datasets.tokenizer import Tokenizer
from keras_skim.models.span_qa.span_qa_data import best_spans, encode_spans

FIXTURE = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "squad" / "tiny_squad.json"


def test_the_fixture_reads_with_every_answer_at_its_offset():
    examples = read_squad_file(FIXTURE)
    assert len(examples) == 13
    for example in examples:
        for text, start in zip(example.answers, example.answer_starts):
            assert example.context[start : start + len(text)] == text


def test_offsets_give_back_the_original_characters():
    text = "Johannes Gutenberg introduced it, around 1440."
    found = tokens_with_offsets(text)
    assert [token for token, _, _ in found] == Tokenizer.tokenize(text)
    assert [text[start:end] for _, start, end in found][:2] == ["Johannes", "Gutenberg"]
    span = answer_token_span(found, text.index("around 1440"), "around 1440")
    assert span == (5, 6)
    assert span_text(text, found, *span) == "around 1440"


def test_every_fixture_answer_maps_to_tokens_and_back():
    examples = read_squad_file(FIXTURE)
    tokenizer = Tokenizer().fit([e.context for e in examples] + [e.question for e in examples])
    encoded = encode_spans(examples, tokenizer, context_length=80)
    assert encoded.answerable.all()
    for row, example in enumerate(examples):
        found = span_text(example.context, encoded.offsets[row], encoded.start[row], encoded.end[row])
        assert found == example.answers[0]
    # a context cut before the answer leaves the question without a target
    short = encode_spans(examples, tokenizer, context_length=5)
    assert not short.answerable[0] and short.context.shape == (13, 5)


def test_a_file_not_in_squad_format_is_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"data": [{"paragraphs": [{"qas": []}]}]}), encoding="utf-8")
    with pytest.raises(DataSourceError, match="not in SQuAD format") as caught:
        read_squad_file(bad)
    assert "\n" not in str(caught.value)
    with pytest.raises(DataSourceError, match="cannot read"):
        read_squad_file(tmp_path / "missing.json")


def test_best_span_keeps_first_before_last_and_a_bounded_length():
    start = np.array([[0.0, 5.0, 0.0, 0.0, 9.0]])
    end = np.array([[0.0, 0.0, 4.0, 0.0, -1e9]])
    # (4, 4) has 9 - 1e9; (1, 2) has 9; an end before the start (4, 2) is not allowed
    assert best_spans(start, end).tolist() == [[1, 2]]
    assert best_spans(start, end, max_answer_tokens=1).tolist() == [[1, 1]]
