"""`keras-skim` train / evaluate / show / demo, run in-process on tiny data."""

import json
import os
import pathlib

import pytest

from keras_skim.cli.main import main
from tests.assertions import check_bench_result, one_line
from tests.tiny_data import use_tiny_rotten_tomatoes

TRAIN = [
    "train",
    "--data",
    "rotten_tomatoes",
    "--units",
    "8",
    "--small-units",
    "2",
    "--epochs",
    "1",
    "--no-glove",
    "--max-length",
    "12",
    "--quiet",
    "--gamma",
    "0.05",
]


def _error_line(capsys):
    return one_line(capsys.readouterr().err)


@pytest.fixture
def trained(trained_folder, tiny_rotten_tomatoes):
    """The suite's Skim-LSTM folder of `keras-skim train` (tests/conftest.py:
    trained once for every file that reads it), with the same tiny data
    wired in (a copy of this test's own, and its own data cache)."""
    return pathlib.Path(trained_folder("skim"))


def test_train_writes_model_tokenizer_and_results(trained):
    from keras_skim import contracts
    from keras_skim.analysis.flops import flop_report
    from tests import conftest

    assert sorted(os.listdir(trained)) == sorted(
        [contracts.MARKER_FILE, "model.keras", "tokenizer.json", "train_config.json"]
    )
    results = json.loads((trained / "train_config.json").read_text())
    config = contracts.read_train_config(trained / "train_config.json")
    assert config.dataset == "rotten_tomatoes" and config.max_length == conftest.MAX_LENGTH
    argv = conftest.TRAIN + conftest.KINDS["skim"]
    units, small_units = (int(argv[argv.index(option) + 1]) for option in ("--units", "--small-units"))
    skim_rate = results["test"]["skim_rate"]
    assert 0.0 <= skim_rate <= 1.0
    # Flop-R is the FLOP count at the measured skim rate (below 1 when
    # nothing is skimmed: the gate costs FLOPs too).
    assert results["test"]["flop_r"] == flop_report("lstm", units, small_units, 50, skim_rate)["flop_r"]
    assert "skim_rate" in results["history"]


def test_train_refuses_to_overwrite_without_force(trained, tmp_path, capsys):
    import shutil

    copy = tmp_path / "run"  # the suite's folder stays as trained, whatever this run does
    shutil.copytree(trained, copy)
    before = (copy / "model.keras").stat().st_mtime
    assert main(TRAIN + ["-o", str(copy)]) == 2
    assert "already exists" in _error_line(capsys)
    assert (copy / "model.keras").stat().st_mtime == before


def test_evaluate_reports_accuracy_skim_rate_and_flop_r(trained, capsys):
    capsys.readouterr()
    assert main(["evaluate", str(trained), "--threshold", "1.5", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["skim_rate"] == 1.0
    assert result["flop_r"] > 1.0
    assert main(["evaluate", str(trained), "--threshold", "0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["skim_rate"] == 0.0


def test_show_marks_words_and_writes_html(trained, tmp_path, capsys):
    page = tmp_path / "show.html"
    text = "a moving and brilliant film"
    assert (
        main(["show", str(trained), "--text", text, "--threshold", "1.5", "--color", "never", "--html", str(page)]) == 0
    )
    out = capsys.readouterr().out
    assert "[moving]" in out and "skimmed 100%" in out
    assert page.read_text().count('class="skim"') == 5
    assert main(["show", str(trained), "--text", text, "--html", str(page)]) == 2
    assert "already exists" in _error_line(capsys)


DEMO = ["demo", "--units", "8", "--small-units", "2", "--epochs", "1", "--quiet"]


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    """(output folder, stdout) of one whole `keras-skim demo` on tiny data:
    both trainings, both exports, the benchmark. The demo tests read it."""
    import contextlib
    import io

    root = tmp_path_factory.mktemp("demo")
    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(printed):
        use_tiny_rotten_tomatoes(patch, root)
        code = main(DEMO + ["-o", str(root / "demo"), "--bench-samples", "10", "--bench-repeats", "1"])
    assert code == 0, printed.getvalue()[-2000:]
    return root / "demo", printed.getvalue()


def test_demo_trains_both_models_and_prints_the_table(demo_run):
    out, printed = demo_run
    assert "| Skim-LSTM |" in printed and "| LSTM |" in printed
    assert {"skim_lstm", "lstm", "comparison.md", "comparison.json"} <= set(os.listdir(out))
    for name in ("skim_lstm", "lstm"):
        assert (out / name / "model.keras").is_file() and (out / name / "train_config.json").is_file()
    assert set(json.loads((out / "comparison.json").read_text())) == {"Skim-LSTM", "LSTM"}


def test_demo_exports_both_models_and_benchmarks_them(demo_run):
    import shutil

    out, printed = demo_run
    assert "speed-up vs LSTM" in printed and "Flop-R" in printed
    assert {"skim_lstm_tflite", "lstm_tflite", "bench.json", "bench.md"} <= set(os.listdir(out))
    report = json.loads((out / "bench.json").read_text())
    has_compiler = shutil.which(os.environ.get("CXX", "g++")) is not None
    assert report["backend"] == ("custom" if has_compiler else "builtin")
    assert report["baseline_backend"] == "builtin"
    check_bench_result(report, report["results"][0])
    meta = json.loads((out / "skim_lstm_tflite" / "metadata.json").read_text())
    assert meta["source_model"] == str(out / "skim_lstm" / "model.keras")
    # The export knows the length the model was trained on (train_config.json).
    assert meta["max_length"] == 50 and meta["parity"]["real_texts"] > 0


def test_demo_no_export_stops_after_the_table(demo_run, tmp_path, tiny_rotten_tomatoes, monkeypatch, capsys):
    """--no-export: the table and the trained folders, no export and no
    benchmark. The trainings themselves are checked on the whole demo
    (demo_run); here each training is a copy of that run's folder."""
    import shutil

    from keras_skim import contracts
    from keras_skim.models.text_classifier import text_classifier_training

    trained, _ = demo_run

    def copy_of_the_demo_run_s(data, config, output_dir, **_):
        folder = trained / config.cell.replace("-", "_")
        shutil.copytree(folder, output_dir)
        return json.loads((folder / "train_config.json").read_text())  # the record train_text_classifier returns

    monkeypatch.setattr(text_classifier_training, "train_text_classifier", copy_of_the_demo_run_s)
    out = tmp_path / "demo"
    assert main(DEMO + ["-o", str(out), "--no-export"]) == 0
    printed = capsys.readouterr().out
    assert "| Skim-LSTM |" in printed and "| LSTM |" in printed and "speed-up vs LSTM" not in printed
    assert set(os.listdir(out)) == {contracts.MARKER_FILE, "skim_lstm", "lstm", "comparison.md", "comparison.json"}


@pytest.mark.parametrize(
    "argv, message",
    [
        (["evaluate", "no/such/model.keras"], "no such model"),
        (["show", "no/such/dir", "--text", "hi"], "no such model"),
        (TRAIN[:5] + ["--small-units", "8", "-o", "x"], "must be smaller"),
    ],
)
def test_bad_input_gives_one_line_errors(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert message in _error_line(capsys)
    assert not os.path.exists(tmp_path / "x")


def test_bad_argument_values_are_rejected_by_the_parser(capsys):
    assert main(["train", "--units", "-3", "-o", "x"]) == 2
    assert "positive integer" in _error_line(capsys)


def test_corrupt_model_files_give_one_line_errors(tmp_path, capsys):
    h5 = tmp_path / "broken.h5"
    h5.write_bytes(b"not an hdf5 file")
    keras_file = tmp_path / "broken.keras"
    keras_file.write_bytes(b"not a zip")
    for path, message in ((h5, "not a readable HDF5"), (keras_file, "not a Keras archive")):
        assert main(["evaluate", str(path), "--data", "rotten_tomatoes"]) == 2
        err = _error_line(capsys)
        assert message in err and str(path) in err
