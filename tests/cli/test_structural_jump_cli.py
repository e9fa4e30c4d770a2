"""`keras-skim train --cell sj-lstm`, `evaluate` and `show` on a Structural-Jump-LSTM, run in
process on tiny data: the real two-phase training, the same numbers from evaluate as the
training recorded, jumped words told apart, and one-line errors for what does not apply."""

import json
import os
import shutil
import zipfile

import numpy as np
import pytest

from keras_skim.cli.main import main
from tests.assertions import one_line

TEXT = "a moving , funny and brilliant film . the cast is great"
WORDS = 10  # TEXT without its comma and period


def _error_line(capsys):
    return one_line(capsys.readouterr().err)


@pytest.fixture
def sj_folder(trained_folder):
    return trained_folder("sj")


def _forced(sj_folder, tmp_path, name, skip_bias, jump_bias):
    """The trained model with its agents forced through their biases, as a model folder."""
    import keras_skim

    model = keras_skim.load_model(os.path.join(sj_folder, "model.keras"))
    model.cell.skip_policy.bias.assign(np.asarray(skip_bias, "float32"))
    model.cell.jump_policy.bias.assign(np.asarray(jump_bias, "float32"))
    folder = tmp_path / name
    folder.mkdir()
    model.save(folder / "model.keras")
    for file in ("tokenizer.json", "train_config.json"):
        shutil.copyfile(os.path.join(sj_folder, file), folder / file)
    return folder


READ, SKIP = [-1e3, 1e3], [1e3, -1e3]
TO_SEPARATOR = [-1e3, 1e3, -1e3, -1e3]


def test_train_writes_a_model_folder_with_both_phases_and_reading_results(sj_folder):
    import keras_skim
    from keras_skim import contracts
    from keras_skim.models.structural_jump.structural_jump_lstm import StructuralJumpLSTM

    assert sorted(os.listdir(sj_folder)) == sorted(
        [contracts.MARKER_FILE, "model.keras", "tokenizer.json", "train_config.json"]
    )
    config = contracts.read_train_config(os.path.join(sj_folder, "train_config.json"))
    assert config.dataset == "rotten_tomatoes" and config.max_length == 30
    arguments = config.arguments
    assert arguments["cell"] == "sj-lstm" and arguments["units"] == 16 and arguments["agent_units"] == 4
    assert (arguments["full_read_epochs"], arguments["speed_read_epochs"]) == (1, 1)
    assert arguments["batch_size"] == 32 and arguments["learning_rate"] == 5e-4  # the paper's
    results = config.results
    assert config.data["classes"] == ["negative", "positive"]
    assert set(results["phases"]) == {"full_read", "speed_read"} and results["epochs_run"] == 2
    assert results["phases"]["full_read"]["history"]["read_fraction"] == [1.0]
    test = results["test"]
    assert test["read_fraction"] + test["skip_fraction"] + test["jump_fraction"] == pytest.approx(1.0)
    assert test["read"] + test["skipped"] + test["jumped"] == test["words"] > 0
    # Flop-r is the FLOP count of the fractions read and visited (corpus level).
    step = results["flops"]
    visited = 1.0 - test["jump_fraction"]
    assert test["flop_r"] == pytest.approx(
        step["baseline_lstm"] / (visited * step["skip_agent"] + test["read_fraction"] * step["read_step"])
    )
    model = keras_skim.load_model(os.path.join(sj_folder, "model.keras"))
    assert isinstance(model, StructuralJumpLSTM)
    assert model.speed_reading and not model.embedding.trainable  # phase 2's frozen embedding
    assert model.units == 16 and model.agent_units == 4


def test_evaluate_gives_the_numbers_training_recorded(sj_folder, tiny_rotten_tomatoes, capsys):
    recorded = json.loads(open(os.path.join(sj_folder, "train_config.json")).read())["test"]
    capsys.readouterr()
    assert main(["evaluate", sj_folder, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["model_kind"] == "structural_jump_lstm" and result["split"] == "test"
    for key in (
        "accuracy",
        "read_fraction",
        "skip_fraction",
        "jump_fraction",
        "flop_r",
        "flop_r_per_document_mean",
        "reward",
        "words",
        "examples",
    ):
        assert result[key] == pytest.approx(recorded[key]), key
    assert result["per_document"] == pytest.approx(recorded["per_document"])
    assert "skim_rate" not in result
    assert main(["evaluate", sj_folder]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "Structural-Jump-LSTM" in lines[0]
    labels = [line.split()[0] for line in lines[1:]]
    assert labels == ["accuracy", "read", "skipped", "jumped", "Flop-r", "mean"]
    assert f"{recorded['jump_fraction']:.1%}" in lines[4]


def test_show_marks_read_skipped_and_jumped_words_and_leaves_punctuation_plain(sj_folder, tmp_path, capsys):
    # Read every visited word and jump to the first word after the next , ; . ! ?
    jumping = _forced(sj_folder, tmp_path, "jumping", READ, TO_SEPARATOR)
    page = tmp_path / "jumps.html"
    assert main(["show", str(jumping), "--text", TEXT, "--color", "never", "--html", str(page)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "a {moving} , funny {and} {brilliant} {film} . the {cast} {is} {great}"
    assert out[2].endswith("read 3 of 10 words (30%), skipped 0%, jumped 70%; punctuation is not read")
    html = page.read_text()
    assert html.count('class="read"') == 3 and html.count('class="jump"') == 7
    assert html.count('class="punct"') == 2 and 'class="skim"' not in html
    assert "struck through" in html and "jumped over" in html  # the legend
    # Skip every word: nothing is read, nothing jumped.
    skipping = _forced(sj_folder, tmp_path, "skipping", SKIP, TO_SEPARATOR)
    assert main(["show", str(skipping), "--text", TEXT, "--color", "always"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("\033[2;37ma\033[0m \033[2;37mmoving\033[0m , ")  # grey words, plain comma
    assert "read 0 of 10 words (0%), skipped 100%, jumped 0%" in out[1]


def test_show_takes_a_text_of_the_data_and_names_its_label(sj_folder, tiny_rotten_tomatoes, capsys):
    assert main(["show", sj_folder, "--data", "rotten_tomatoes", "--index", "2", "--color", "never"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "label: " in out[-1] and " words (" in out[-1]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["evaluate", "{sj}", "--threshold", "0.3"], "--threshold does not apply"),
        (["show", "{sj}", "--text", TEXT, "--threshold", "0.3"], "--threshold does not apply"),
        (["show", "{sj}", "--text", ". , .. ,"], "no words, only punctuation"),
        (["show", "{sj}", "--text", "  "], "no tokens"),
    ],
)
def test_what_does_not_apply_to_a_jump_model_is_one_line(sj_folder, argv, message, capsys):
    assert main([a.replace("{sj}", sj_folder) for a in argv]) == 2
    assert message in _error_line(capsys)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--cell", "sj-lstm", "--epochs", "3"], "--epochs does not apply to --cell sj-lstm"),
        (
            ["--cell", "sj-lstm", "--gamma", "0.1", "--threshold", "0.5"],
            "--gamma, --threshold do not apply to --cell sj-lstm",
        ),
        (["--cell", "lstm", "--full-read-epochs", "2"], "--full-read-epochs does not apply to --cell lstm"),
        (["--cell", "sj-lstm", "--full-read-epochs", "0", "--speed-read-epochs", "0"], "nothing to train"),
        (["--cell", "sj-lstm", "--read-budget", "1.5"], "expected a number in (0, 1]"),
        (["--cell", "sj-lstm", "--data", "no/such/file.csv"], "no such file"),
        (
            ["--cell", "sj-lstm", "--full-read-epochs", "1", "--schedule", "authors"],
            "--full-read-epochs (a schedule in epochs) cannot be combined with --schedule",
        ),
        (["--cell", "sj-lstm", "--validate-every", "0"], "--validate-every must be at least 1"),
        (["--cell", "sj-lstm", "--full-read-steps", "0", "--speed-read-steps", "0"], "nothing to train"),
        (["--cell", "lstm", "--schedule", "authors"], "--schedule does not apply to --cell lstm"),
        (["--cell", "sj-lstm", "--run-name", "../up"], "--run-name must be a folder name"),
        (["--cell", "sj-lstm", "--run-name", "r" * 300], "--run-name must be at most 255 bytes"),  # issue 30
        (
            ["--cell", "sj-lstm", "--full-read-epochs", "1", "--resume"],
            "--full-read-epochs (a schedule in epochs) cannot be combined with --resume",
        ),
        (["--cell", "lstm", "--rolling-weight", "0.1"], "--rolling-weight does not apply to --cell lstm"),
        (["--cell", "sj-lstm", "--rolling-weight", "-1"], "--rolling-weight: expected a finite number >= 0"),
    ],
)
def test_train_refuses_options_of_other_cells_in_one_line(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["train", "--no-glove", *argv, "-o", "out"]) == 2
    assert message in _error_line(capsys)
    assert not os.path.exists(tmp_path / "out")


def _saved_config(folder):
    """The StructuralJumpLSTM's own config in folder/model.keras (read from the archive, no model built)."""
    with zipfile.ZipFile(folder / "model.keras") as archive:
        return json.loads(archive.read("config.json"))["config"]


@pytest.mark.parametrize(
    "argv, weight",
    [
        ([], None),  # the schedule's, given to the model there
        (["--rolling-weight", "0.05"], None),
        (["--full-read-epochs", "1"], None),  # the model's own default
        (["--full-read-epochs", "1", "--rolling-weight", "0.05"], 0.05),
    ],
)
def test_the_rolling_weight_option_goes_to_the_schedule_or_in_epochs_to_the_model(argv, weight, tmp_path):
    from keras_skim.cli.main import build_parser
    from keras_skim.models.structural_jump import structural_jump_commands

    args = build_parser().parse_args(["train", "--cell", "sj-lstm", *argv, "-o", str(tmp_path / "o")])
    structural_jump_commands.check(args, "sj-lstm", 128)
    assert structural_jump_commands._model_options(args).get("rolling_weight") == weight
    if args.full_read_epochs is None:
        expected = 0.05 if "--rolling-weight" in argv else 0.1
        assert args.schedule_steps.rolling_weight == expected


@pytest.mark.parametrize(
    "argv, run_dir, message",
    [
        (["--full-read-epochs", "1"], None, "stopped in full_read at step 3; a run in epochs cannot be resumed"),
        ([], "runs/r", "stopped in full_read at step 3; checkpoint in runs/r: run the same command with --resume"),
    ],
)
def test_a_stopped_run_says_whether_it_can_be_resumed(argv, run_dir, message, tmp_path, monkeypatch, capsys):
    from keras_skim.models.structural_jump import structural_jump_training
    from keras_skim.training.run_checkpoint import TrainingInterrupted

    seen = []

    def stopped(data, config, output_dir, **run):
        seen.append((config, run))
        raise TrainingInterrupted(run_dir, "full_read", 3)

    monkeypatch.setattr(structural_jump_training, "train_structural_jump_model", stopped)
    assert main(["train", "--cell", "sj-lstm", "--no-glove", *argv, "-o", str(tmp_path / "o")]) == 130
    assert message in capsys.readouterr().err
    config, run = seen[0]
    assert (config.schedule is None) == bool(argv) and config.units == 128 and run["verbose"] == 1
    assert ("resume" in run) != bool(argv)  # the checkpoint options go with a schedule in steps only


def _falls_short(monkeypatch):
    """Every speed-read validation scored 0.5 under what the greedy policy gets: none within
    one point of the full reader."""
    from keras_skim.models.structural_jump import structural_jump_evaluation

    evaluate = structural_jump_evaluation.evaluate_structural_jump

    def falls_short(model, ids, labels, **kwargs):
        scores = evaluate(model, ids, labels, **kwargs)
        return {**scores, "accuracy": scores["accuracy"] - 0.5} if model.speed_reading else scores

    monkeypatch.setattr(structural_jump_evaluation, "evaluate_structural_jump", falls_short)


def test_train_in_steps_keeps_the_full_reader_below_the_floor_and_resumes_a_finished_run(
    tiny_rotten_tomatoes, tmp_path, capsys, monkeypatch
):
    """One step of each phase, a validation after each (one `train` for what the steps, the
    fallback and the resume check: each run traces its training steps again). No speed-read
    validation reaches the floor: the full reader is kept, `train` says so in one line and
    train_config.json records it."""
    from keras_skim import contracts
    from tests.conftest import SJ_TRAIN

    _falls_short(monkeypatch)
    argv = [a for a in SJ_TRAIN if a not in ("--full-read-epochs", "--speed-read-epochs", "1")]
    argv += ["--full-read-steps", "1", "--speed-read-steps", "1", "--validate-every", "1"]
    argv += ["--run-name", "fallback", "-o", str(tmp_path / "sj")]
    assert main(argv) == 0
    config = contracts.read_train_config(tmp_path / "sj" / "train_config.json")
    results = config.results
    history = [(r["phase"], r["step"], r["total_step"]) for r in results["history"]]
    assert history == [("full_read", 1, 1), ("speed_read", 1, 2)]
    assert results["steps_run"] == 2 and set(results["phases"]) == {"full_read", "speed_read"}
    assert config.arguments["schedule"]["speed_read_steps"] == 1
    assert config.arguments["schedule"]["entropy_decay_steps"] == 1500  # the default preset's, not overridden
    assert config.arguments["schedule"]["rolling_weight"] == 0.1
    assert _saved_config(tmp_path / "sj")["rolling_weight"] == 0.1  # the model's w is the preset's
    run_dir = config.arguments["run_dir"]
    assert sorted(os.listdir(run_dir)) == ["checkpoint.npz", "history.png"]
    assert os.path.basename(run_dir) == "fallback" and not run_dir.startswith(str(tmp_path / "sj"))
    _assert_full_reader_kept(results, tmp_path / "sj", capsys.readouterr().out)
    # The finished run's checkpoint rewrites the same model without training again.
    assert main(argv + ["--resume", "--force"]) == 0
    again = contracts.read_train_config(tmp_path / "sj" / "train_config.json").results
    assert again["history"] == results["history"] and again["test"] == results["test"]
    # Issue 30, row 7: a truncated checkpoint is one line on --resume; --force without --resume starts over.
    checkpoint = os.path.join(run_dir, "checkpoint.npz")
    with open(checkpoint, "r+b") as f:
        f.truncate(os.path.getsize(checkpoint) // 2)
    assert main(argv + ["--resume", "--force"]) == 2
    line = _error_line(capsys)
    assert "checkpoint.npz: not a checkpoint keras-skim can resume" in line and "--force (without --resume)" in line
    assert main(argv + ["--force"]) == 0


def _assert_full_reader_kept(results, folder, out):
    record = results["speed_reading"]
    full_reader = results["full_read_validation_accuracy"]
    assert record["kept"] == "full-reader" and record["why"].startswith("no speed-read validation reached the floor")
    assert record["floor"] == round(full_reader - 0.01, 12)  # no floating-point rest under the full reader
    assert record["full_reader"] == {"accuracy": full_reader, "read_fraction": 1.0}
    # The model written is the full reader: it reads every word, as accurately as phase 1's best.
    assert record["validation"] == {"accuracy": pytest.approx(full_reader), "read_fraction": 1.0}
    assert results["test"]["read_fraction"] == 1.0 and _saved_config(folder)["speed_reading"] is False
    assert "steps" in out
    last = out.strip().splitlines()[-1]
    assert last == record["line"]
    assert last.startswith(f"full reader kept: validation accuracy {full_reader:.4f} at 100.0% read; full reader ")
