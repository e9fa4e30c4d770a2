"""`keras-skim show` and `evaluate` of an export folder (model.tflite,
metadata.json, tokenizer.json), run through the TensorFlow-free runtime:
the same read decisions and numbers as the Keras model they were exported
from, on the suite's shared trained models and exports."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from keras_skim import contracts
from keras_skim.cli.main import main
from tests.assertions import one_line

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEXT = "a moving , funny and brilliant film . the plot is boring"


def _run(capsys, argv):
    capsys.readouterr()
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_show_of_an_export_marks_the_words_the_keras_model_marks(exported, tiny_rotten_tomatoes, capsys, tmp_path):
    model_file, export, _ = exported("skim")
    folder = os.path.dirname(model_file)
    for threshold in ("0.3", "0.7"):
        common = ["--text", TEXT, "--threshold", threshold, "--color", "never"]
        code, keras_out, _ = _run(capsys, ["show", folder, *common])
        assert code == 0
        code, export_out, _ = _run(capsys, ["show", export, *common])
        assert code == 0
        keras_lines, export_lines = keras_out.splitlines(), export_out.splitlines()
        # the marked words, and the counts of the summary, are the Keras model's
        assert export_lines[0] == keras_lines[0] and len(export_lines) == 2
        assert export_lines[1].split("; ")[1] == keras_lines[1].split("; ")[1]
        assert export_lines[1].split(" (p=")[0] == keras_lines[1].split(" (p=")[0]  # the predicted class
    page = tmp_path / "show.html"
    assert main(["show", export, "--data", "rotten_tomatoes", "--index", "2", "--html", str(page)]) == 0
    assert "label: " in capsys.readouterr().out and 'class="read"' in page.read_text()


def test_evaluate_of_an_export_gives_the_keras_numbers(exported, tiny_rotten_tomatoes, capsys):
    model_file, export, _ = exported("skim")
    common = ["--data", "rotten_tomatoes", "--threshold", "0.5", "--json"]
    code, out, _ = _run(capsys, ["evaluate", os.path.dirname(model_file), *common])
    assert code == 0
    keras_result = json.loads(out)
    code, out, _ = _run(capsys, ["evaluate", export, *common])
    assert code == 0
    result = json.loads(out)
    assert result["examples"] == keras_result["examples"] > 10
    assert result["accuracy"] == keras_result["accuracy"]
    assert result["skim_rate"] == pytest.approx(keras_result["skim_rate"], abs=1e-9)
    assert result["flop_r"] == pytest.approx(keras_result["flop_r"], rel=1e-6)
    code, out, _ = _run(capsys, ["evaluate", export, "--data", "rotten_tomatoes", "--limit", "8"])
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith(f"{export} on ") and "(8 texts, 2 classes" in lines[0]
    assert [line.split()[0] for line in lines[1:]] == ["accuracy", "skim", "Flop-R"]


def test_a_jump_export_shows_read_skipped_and_jumped_words(exported, tiny_rotten_tomatoes, capsys):
    model_file, export, _ = exported("sj")
    folder = os.path.dirname(model_file)
    common = ["--text", TEXT, "--color", "never"]
    code, keras_out, _ = _run(capsys, ["show", folder, *common])
    assert code == 0
    code, export_out, _ = _run(capsys, ["show", export, *common])
    assert code == 0
    assert export_out.splitlines()[:2] == keras_out.splitlines()[:2]  # the marks and their legend
    assert export_out.splitlines()[2].split("; ")[1:] == keras_out.splitlines()[2].split("; ")[1:]
    code, out, _ = _run(capsys, ["evaluate", export, "--data", "rotten_tomatoes", "--json"])
    result = json.loads(out)
    assert code == 0 and result["threshold"] is None
    fractions = result["read_fraction"] + result["skip_fraction"] + result["jump_fraction"]
    assert fractions == pytest.approx(1.0) and 0 <= result["accuracy"] <= 1 and result["flop_r"] >= 1
    code, _, err = _run(capsys, ["evaluate", export, "--data", "rotten_tomatoes", "--threshold", "0.5"])
    assert code == 2 and "--threshold does not apply to" in one_line(err)


def test_show_of_an_export_imports_no_tensorflow(exported):
    _, export, _ = exported("skim")
    script = (
        "import sys\nfrom keras_skim.cli.main import main\n"
        f"code = main(['show', {export!r}, '--text', {TEXT!r}, '--color', 'always'])\n"
        "assert code == 0, code\n"
        "assert not {'tensorflow', 'keras'} & set(sys.modules), 'imported TensorFlow or Keras'\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=ROOT),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "\x1b[1m" in done.stdout and "skimmed" in done.stdout


def test_export_folder_errors_are_one_line(exported, capsys, tmp_path):
    _, export, _ = exported("skim")
    code, _, err = _run(capsys, ["evaluate", export])
    assert code == 2 and one_line(err).endswith("an export does not record the data it was trained on (pass --data)")
    no_tokenizer = tmp_path / "no_tokenizer"
    shutil.copytree(export, no_tokenizer)
    os.remove(no_tokenizer / contracts.TOKENIZER_FILE)
    code, _, err = _run(capsys, ["show", str(no_tokenizer), "--text", TEXT])
    assert code == 2 and one_line(err).endswith(f"the export has no {contracts.TOKENIZER_FILE} (pass --tokenizer PATH)")
    assert main(["show", str(no_tokenizer), "--text", TEXT, "--tokenizer", export, "--color", "never"]) == 0
    broken = tmp_path / "broken"
    shutil.copytree(export, broken)
    (broken / contracts.TFLITE_FILE).write_bytes(b"not a model")
    code, _, err = _run(capsys, ["show", str(broken), "--text", TEXT])
    assert code == 2 and str(broken) in one_line(err)
