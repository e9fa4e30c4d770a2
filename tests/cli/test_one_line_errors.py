"""The CLI's promise for bad input, checked on the real process: exit 2 and
exactly one line on stderr (no TensorFlow or LiteRT log lines before it),
nothing written. Each case runs `python -m keras_skim` as a subprocess."""

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cli(argv, cwd=None, **env_extra):
    """(exit code, stdout, stderr) of `python -m keras_skim ARGV`, in an
    environment like a user's (no TensorFlow logging settings)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TF_CPP", "KERAS_SKIM_NATIVE"))}
    env.update(env_extra)
    env["PYTHONPATH"] = os.pathsep.join([ROOT] + [p for p in [env.get("PYTHONPATH")] if p])
    done = subprocess.run(
        [sys.executable, "-m", "keras_skim", *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env=env,
    )
    return done.returncode, done.stdout, done.stderr


def one_line_error(argv, expect, cwd=None, **env_extra):
    code, _, err = cli(argv, cwd=cwd, **env_extra)
    assert code == 2, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("keras-skim") and expect in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def model_dir(trained_folder, tmp_path_factory):
    folder = tmp_path_factory.mktemp("one_line") / "run"
    shutil.copytree(trained_folder("skim"), folder)
    return folder


def test_an_error_after_tensorflow_is_loaded_is_still_one_line(tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "model.keras").write_bytes(b"PK\x03\x04 not really a zip")
    one_line_error(["evaluate", tmp_path / "run", "--data", "rotten_tomatoes"], "not a Keras archive")


def test_success_leaves_stderr_empty(model_dir, tmp_path):
    code, out, err = cli(["export", model_dir, "-o", tmp_path / "exp", "--parity-samples", "1"])
    assert code == 0 and err == "", err
    assert "parity OK" in out


def test_corrupt_train_config(model_dir, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(model_dir, broken)
    (broken / "train_config.json").write_text('{"arguments": ')
    for command in ("evaluate", "export"):
        one_line_error([command, broken], "train_config.json: not valid JSON")
    (broken / "train_config.json").write_text('{"arguments": {"max_length": "long"}}')
    one_line_error(["evaluate", broken], "max_length")


def test_show_binary_file_and_bad_html_targets(model_dir, tmp_path):
    binary = tmp_path / "picture.bin"
    binary.write_bytes(bytes(range(256)))
    one_line_error(["show", model_dir, "--file", binary], "binary file")
    latin = tmp_path / "latin.txt"
    latin.write_bytes("good\nna\xefve plot\n".encode("latin-1"))
    one_line_error(["show", model_dir, "--file", latin], "line 2 is not UTF-8")
    one_line_error(["show", model_dir, "--text", "good", "--html", tmp_path], "is a folder")
    (tmp_path / "plain").write_text("x")
    one_line_error(["show", model_dir, "--text", "good", "--html", tmp_path / "plain" / "p.html"], "does not exist")
    mine = tmp_path / "mine.html"
    mine.write_text("my own notes")
    one_line_error(["show", model_dir, "--text", "good", "--html", mine, "--force"], "not written by keras-skim")
    assert mine.read_text() == "my own notes"


def test_unwritable_output_folder_is_refused_before_any_work(model_dir, tmp_path):
    (tmp_path / "plain").write_text("x")
    for argv in (
        ["export", model_dir, "-o", tmp_path / "plain" / "exp"],
        ["train", "--data", "rotten_tomatoes", "-o", tmp_path / "plain" / "run"],
    ):
        one_line_error(argv, "cannot create the output folder")


def test_force_refuses_the_current_home_and_input_folders(model_dir, tmp_path):
    for argv in (
        ["train", "--data", "rotten_tomatoes", "-o", ".", "--force"],
        ["export", model_dir, "-o", "..", "--force"],
        ["demo", "-o", os.path.expanduser("~"), "--force"],
    ):
        one_line_error(argv, "refusing", cwd=model_dir)
    one_line_error(["export", model_dir, "-o", model_dir, "--force"], "input")
    assert (model_dir / "model.keras").is_file()


def test_argument_errors_are_one_line():
    one_line_error(["bench", "x.tflite", "--thresholds", "0.2,nan"], "--thresholds")
    one_line_error(["train", "--units", "0", "-o", "x"], "positive integer")
    one_line_error(["nosuchcommand"], "invalid choice")


def test_bench_when_the_custom_op_cannot_be_registered(custom_exported, tmp_path):
    """A custom-op export on an install without the op library (built without
    a C++ compiler, or not Linux): one line when the model is opened, nothing written."""
    from keras_skim import litert_ops

    try:
        litert_ops.library_path()
    except RuntimeError:
        pytest.skip("the op library is not built here: the custom-op export cannot be made")
    out = custom_exported("skim")
    (tmp_path / "no_build").mkdir()
    line = one_line_error(
        ["bench", out, "--samples", "1", "-o", tmp_path / "report"],
        "custom-op library is not part of this install",
        CXX="no-such-compiler",
        KERAS_SKIM_OPS_DIR=str(tmp_path / "no_build"),
    )
    assert "model.tflite" in line and not (tmp_path / "report").exists()
