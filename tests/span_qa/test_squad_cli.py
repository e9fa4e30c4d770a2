"""`keras-skim train --task squad` and `evaluate` of its folder, on the small SQuAD-format fixture (no web)."""

import json
import pathlib

import pytest

from keras_skim.cli.main import main

FIXTURE = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "squad" / "tiny_squad.json"
TRAIN = ["train", "--task", "squad", "--data", str(FIXTURE), "--units", "4", "--small-units", "2"]
TRAIN += ["--epochs", "1", "--max-length", "60", "--quiet"]


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--model", "bidaf"], "--model bidaf applies only with --task squad"),
        (["--task", "squad", "--cell", "sj-lstm"], "--cell sj-lstm cannot read for --task squad"),
        (["--task", "squad", "--data", "rotten_tomatoes"], "--task squad needs --data FILE.json"),
        (["--task", "squad", "--data", str(FIXTURE), "--limit", "5"], "--limit does not apply to --task squad"),
        (["--task", "squad", "--data", str(FIXTURE), "--threshold", "0.3"], "--threshold does not apply"),
    ],
)
def test_bad_task_options_are_one_line(tmp_path, capsys, extra, message):
    assert main(["train", *extra, "-o", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "run").exists()


def test_a_file_not_in_squad_format_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"data": 3}', encoding="utf-8")
    assert main(["train", "--task", "squad", "--data", str(bad), "-o", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert "not in SQuAD format" in err and err.count("\n") == 1


def test_train_then_evaluate_prints_f1_em_and_the_skim_rate_per_layer(tmp_path, capsys):
    run = tmp_path / "run"
    assert main([*TRAIN, "--model", "bidaf", "--cell", "skim-gru", "-o", str(run)]) == 0
    record = json.loads((run / "task.json").read_text(encoding="utf-8"))
    assert record["task"] == "squad" and record["model"] == "bidaf" and record["cell"] == "skim-gru"
    assert record["held_out"]["questions"] == 1  # 10% of 13, rounded
    capsys.readouterr()
    assert main(["evaluate", str(run), "--data", str(FIXTURE), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["questions"] == 13
    assert 0.0 <= result["exact_match"] <= result["f1"] <= 100.0
    assert list(result["layers"]) == ["contextual", "modeling_1", "modeling_2", "output"]
    for row in result["layers"].values():
        assert row["forward"]["tokens"] == row["backward"]["tokens"] > 0
    # a threshold of 1 skims every token of every layer
    assert main(["evaluate", str(run), "--data", str(FIXTURE), "--threshold", "1"]) == 0
    out = capsys.readouterr().out
    assert "F1 " in out and "EM " in out
    assert out.count("skim rate 100.0% (forward 100.0%, backward 100.0%)") == 4
    # show: the answer and, per layer and direction, the context with what it skimmed in [brackets]
    context = "Johannes Gutenberg introduced the printing press to Europe around 1440."
    page = tmp_path / "show.html"
    show = ["show", str(run), "--context", context, "--question", "Who introduced the printing press?"]
    assert main([*show, "--threshold", "1", "--color", "never", "--html", str(page)]) == 0
    out = capsys.readouterr().out
    assert "answer: " in out and out.count("100.0% skimmed") == 8
    assert "[Johannes] [Gutenberg] [introduced]" in out
    assert "<h2>output backward: 100.0% skimmed</h2>" in page.read_text(encoding="utf-8")
    assert main(["show", str(run), "--text", "a text"]) == 2
    assert "reads --context and --question" in capsys.readouterr().err
