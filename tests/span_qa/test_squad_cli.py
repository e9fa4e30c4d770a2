"""`keras-skim train --task squad` and `evaluate` of its folder, on the small SQuAD-format fixture (no web)."""

import contextlib
import io
import json
import pathlib
import re

import pytest

from keras_skim.cli.main import main

FIXTURE = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "squad" / "tiny_squad.json"
TRAIN = ["train", "--task", "squad", "--data", str(FIXTURE), "--units", "2", "--small-units", "1"]
TRAIN += ["--epochs", "1", "--max-length", "12", "--quiet"]


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


@pytest.fixture(scope="module")
def bidaf_run(tmp_path_factory):
    """(folder, what train printed) of the one `train --model bidaf` run that the tests below read: the
    tiniest BiDAF (d = 2, d' = 1, 12 context tokens, one epoch) with skim-GRU reading layers."""
    run = tmp_path_factory.mktemp("squad") / "run"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main([*TRAIN, "--model", "bidaf", "--cell", "skim-gru", "-o", str(run)]) == 0
    return run, printed.getvalue()


def test_train_writes_its_record_and_prints_f1_em_and_the_skim_rate_per_layer(bidaf_run):
    run, printed = bidaf_run
    record = json.loads((run / "task.json").read_text(encoding="utf-8"))
    assert record["task"] == "squad" and record["model"] == "bidaf" and record["cell"] == "skim-gru"
    assert record["held_out"]["questions"] == 1  # 10% of 13, rounded
    assert "F1 " in printed and "EM " in printed
    # one line per layer, in reading order, each with its two directions' rates
    layer_line = re.compile(r"^  (\w+): skim rate [\d.]+% \(forward [\d.]+%, backward [\d.]+%\)$", re.MULTILINE)
    assert layer_line.findall(printed) == ["contextual", "modeling_1", "modeling_2", "output"]


def test_evaluate_a_threshold_of_one_skims_every_token_of_every_layer(bidaf_run, capsys):
    run, _ = bidaf_run
    assert main(["evaluate", str(run), "--data", str(FIXTURE), "--threshold", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["questions"] == 13
    assert 0.0 <= result["exact_match"] <= result["f1"] <= 100.0
    assert list(result["layers"]) == ["contextual", "modeling_1", "modeling_2", "output"]
    for row in result["layers"].values():
        assert row["forward"]["tokens"] == row["backward"]["tokens"] > 0
        assert row["skim_rate"] == row["forward"]["skim_rate"] == row["backward"]["skim_rate"] == 1.0
    assert result["skim_rate"] == 1.0
    # the printed report (no --json): F1, EM and one line per layer, as train prints it
    assert main(["evaluate", str(run), "--data", str(FIXTURE)]) == 0
    printed = capsys.readouterr().out
    assert "F1 " in printed and "EM " in printed
    layer_line = re.compile(r"^  (\w+): skim rate [\d.]+% \(forward [\d.]+%, backward [\d.]+%\)$", re.MULTILINE)
    assert layer_line.findall(printed) == ["contextual", "modeling_1", "modeling_2", "output"]


def test_show_marks_what_each_layer_and_direction_skimmed(bidaf_run, tmp_path, capsys):
    run, _ = bidaf_run
    # the answer and, per layer and direction, the context with what it skimmed in [brackets]
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
