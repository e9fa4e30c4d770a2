"""CBT-format cloze text cast as SQuAD-format span extraction (keras_skim.datasets.cloze_to_squad)."""

import json
import pathlib

import pytest

from keras_skim.datasets.cloze_to_squad import cloze_examples, cloze_to_squad, main
from keras_skim.datasets.errors import DataSourceError
from keras_skim.datasets.squad import read_squad_file

FIXTURE = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "cloze" / "tiny_cbt.txt"


def test_the_cbt_fixture_becomes_squad_questions_with_their_answer_in_the_context(tmp_path, capsys):
    target = tmp_path / "cbt.json"
    assert main([str(FIXTURE), str(target)]) == 0
    # the third example's answer ("nightingale") is not in its context: left out and counted
    assert "2 questions (1 left out" in capsys.readouterr().out
    examples = read_squad_file(target)
    assert [e.answers for e in examples] == [("rabbit",), ("fox",)]
    assert examples[0].question == "The next morning the XXXXX went to the meadow again ."
    for example in examples:
        start = example.answer_starts[0]
        assert example.context[start : start + len(example.answers[0])] == example.answers[0]
        assert example.context.startswith("The little rabbit lived in a hole")
    # the first whole-word occurrence: "fox" at "a fox who", not inside another word
    assert examples[1].context[examples[1].answer_starts[0] - 2 :].startswith("a fox who")
    assert json.loads(target.read_text())["data"][0]["paragraphs"][0]["qas"][0]["candidates"][0] == "carrots"


def test_a_whole_word_answer_only():
    sentences = ["the foxglove grew ."] * 19 + ["a fox ran ."]
    document, left_out = cloze_to_squad([(sentences, "the XXXXX ran", "fox", ["fox"])])
    qa = document["data"][0]["paragraphs"][0]["qas"][0]
    context = document["data"][0]["paragraphs"][0]["context"]
    assert left_out == 0 and context[qa["answers"][0]["answer_start"] :].startswith("fox ran")


def test_a_short_block_or_a_query_without_the_blank_is_one_line():
    lines = FIXTURE.read_text().splitlines()
    with pytest.raises(DataSourceError, match="21 numbered lines"):
        cloze_examples(lines[:20])
    broken = lines[:20] + [lines[20].replace("XXXXX", "rabbit")]
    with pytest.raises(DataSourceError, match="line 21 must be"):
        cloze_examples(broken, "cbt.txt")


def test_the_span_benchmark_slices_a_set_whatever_its_source_prefix(tmp_path):
    import argparse
    import importlib.util
    import sys

    benchmarks = pathlib.Path(__file__).resolve().parents[2] / "benchmarks"
    sys.path.insert(0, str(benchmarks))  # the benchmark imports its sibling cloze_readers
    try:
        spec = importlib.util.spec_from_file_location("cloze_span_readers", benchmarks / "cloze_span_readers.py")
        readers = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(readers)
    finally:
        sys.path.remove(str(benchmarks))
    cloze_set = tmp_path / "set"
    cloze_set.mkdir()
    for split in ("train", "test"):
        (cloze_set / f"books_cloze_CN_{split}.txt").write_text(FIXTURE.read_text(encoding="utf-8"))
    args = argparse.Namespace(
        set=cloze_set,
        kind="CN",
        runs=tmp_path / "runs",
        tag="t",
        train_questions=1,
        test_questions=0,
        max_length=400,
        seed=0,
    )
    train, test, counts = readers.prepare_data(args)
    assert counts["train"] == {"in the file": 3, "answer inside": 2, "sampled": 1}
    assert counts["test"]["sampled"] == 2
    assert len(read_squad_file(train)) == 1 and len(read_squad_file(test)) == 2
    with pytest.raises(SystemExit, match=r"expected one \*_cloze_NE_train.txt file, found 0"):
        readers.prepare_data(argparse.Namespace(**{**vars(args), "kind": "NE"}))
