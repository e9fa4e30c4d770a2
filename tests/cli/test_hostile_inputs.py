"""Hostile input to the CLI (issue 15): out-of-range arguments refused
before TensorFlow loads, endless files, zip bombs, full disks, file names
that are not UTF-8, inconsistent model folders; each exit 2 with one line,
nothing half-written."""

import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from tests.assertions import one_line
from tests.cli.test_one_line_errors import one_line_error
from tests.export.helpers import run_cli

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_PARSE_ONLY = r"""
import contextlib, io, sys
from keras_skim.cli.main import main
err = io.StringIO()
with contextlib.redirect_stderr(err):
    code = main(sys.argv[1:])
print(code, sorted({m.split(".")[0] for m in sys.modules} & {"tensorflow", "keras"}), repr(err.getvalue()))
"""


@pytest.mark.parametrize(
    "argv, expect",
    [
        (["train", "--data", "x.csv", "-o", "out", "--seed", "-1"], "--seed"),
        (["train", "--data", "x.csv", "-o", "out", "--seed", str(2**33)], "--seed"),
        (["train", "--data", "x.csv", "-o", "out", "--max-tokens", "1"], "--max-tokens"),
        (["train", "--data", "x.csv", "-o", "out", "--max-length", str(2**31)], "--max-length"),
        (["bench", "model.tflite", "--threads", "40000"], "--threads"),
        (["bench", "model.tflite", "--threads", "0"], "--threads"),
        # Issue 30, row 6: size options have upper bounds, checked before any work.
        (["train", "--data", "x.csv", "-o", "out", "--units", "100000000"], "--units"),
        (["train", "--data", "x.csv", "-o", "out", "--batch-size", str(2**20)], "--batch-size"),
        (["train", "--data", "x.csv", "-o", "out", "--cell", "sj-lstm", "--agent-units", "100000000"], "--agent-units"),
        (["demo", "-o", "out", "--units", "100000000"], "--units"),
        (["demo", "-o", "out", "--bench-samples", "100000000"], "--bench-samples"),
        (["export", "model.keras", "-o", "out", "--parity-samples", "100000000"], "--parity-samples"),
        # `-o ""` fell back to the default place.
        (["export", "model.keras", "-o", ""], "-o/--output: expected a path to write"),
        (["train", "--data", "x.csv", "-o", ""], "-o/--output: expected a path to write"),
        (["demo", "-o", ""], "-o/--output: expected a path to write"),
        (["bench", "model.tflite", "-o", " "], "-o/--output: expected a path to write"),
        (["show", "model", "--text", "hi", "--html", ""], "--html: expected a path to write"),
    ],
)
def test_out_of_range_arguments_are_refused_before_tensorflow_loads(tmp_path, argv, expect):
    proc = subprocess.run(
        [sys.executable, "-c", _PARSE_ONLY, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=ROOT),
    )
    code, heavy, err = proc.stdout.strip().split(" ", 2)
    err = eval(err)  # the repr printed above
    assert code == "2" and heavy == "[]", proc.stdout + proc.stderr
    assert expect in one_line(err), err
    assert not os.path.exists(tmp_path / "out")


def _keras_bomb(path, config_bytes):
    """A .keras zip whose config.json inflates to `config_bytes` (spaces,
    a few kB compressed)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("config.json", "w", force_zip64=True) as f:
            chunk = b" " * (1 << 20)
            for _ in range(config_bytes >> 20):
                f.write(chunk)
        archive.writestr("metadata.json", "{}")


def test_keras_archive_that_inflates_hugely_is_refused(tmp_path):
    from keras_skim.model_io import MAX_CONFIG_BYTES, ModelLoadError, load_model

    bomb = tmp_path / "model.keras"
    _keras_bomb(bomb, MAX_CONFIG_BYTES + (1 << 20))
    assert bomb.stat().st_size < 200_000
    with pytest.raises(ModelLoadError, match="config.json inflates to"):
        load_model(bomb)


def test_a_large_config_that_barely_compresses_is_a_model_not_a_bomb(tmp_path):
    # Models trained before stop 29 kept GloVe as the Embedding's Constant initializer: about 20 MB of JSON
    # digits in config.json. They must still load.
    import numpy as np

    from keras_skim.model_io import MAX_CONFIG_BYTES, check_archive

    digits = np.random.default_rng(0).integers(0, 10, MAX_CONFIG_BYTES + (1 << 20), dtype=np.uint8) + ord("0")
    archive_path = tmp_path / "model.keras"
    with zipfile.ZipFile(archive_path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("config.json", digits.tobytes())
    check_archive(str(archive_path))  # no error: a 17 MiB config that compresses about 2x


def test_show_file_on_an_endless_stream(trained_folder):
    one_line_error(["show", trained_folder("skim"), "--file", "/dev/zero"], "is a character device, not a regular file")


def _bench_folder(exported, tmp_path):
    folder = tmp_path / "export"
    shutil.copytree(exported("skim")[1], folder)
    return folder


@pytest.mark.parametrize(
    "key, value",
    [("max_length", "abc"), ("max_length", 10**12), ("vocabulary_size", 1e9), ("flops", "abc")],
)
def test_bench_names_the_metadata_key(exported, tmp_path, key, value):
    folder = _bench_folder(exported, tmp_path)
    meta = json.loads((folder / "metadata.json").read_text())
    meta[key] = value
    (folder / "metadata.json").write_text(json.dumps(meta))
    code, _, err = run_cli(["bench", str(folder), "--samples", "1", "--repeats", "1"])
    assert code == 2 and "metadata.json" in one_line(err) and f'"{key}"' in err, err


def test_bench_report_to_a_name_that_is_not_utf8(exported, tmp_path):
    folder = _bench_folder(exported, tmp_path)
    out = os.fsdecode(os.path.join(os.fsencode(str(tmp_path)), b"report-\xff"))
    code, stdout, err = run_cli(["bench", str(folder), "--samples", "1", "--repeats", "1", "-o", out])
    assert code == 0 and err == "", err
    assert "report-\\xff" in stdout
    assert sorted(os.listdir(out)) == [".keras-skim-output.json", "report.json", "report.md"]


@pytest.fixture
def tiny_disk(tmp_path):
    """A 64 kB tmpfs (root only) with free inodes, so that files can be
    created and writing them fails with ENOSPC."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k,nr_inodes=100", "tmpfs", str(disk)], capture_output=True
    ).returncode:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    yield disk
    subprocess.run(["umount", str(disk)], capture_output=True)


def _fill(disk):
    """Fills the disk (unbuffered: nothing is left to flush at close)."""
    with open(disk / "filler", "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"x" * 4096)
        except OSError:
            pass


def test_full_disk_during_bench_report_and_show_html(exported, trained_folder, tiny_disk, tmp_path):
    folder = _bench_folder(exported, tmp_path)
    _fill(tiny_disk)
    code, _, err = run_cli(["bench", str(folder), "--samples", "1", "--repeats", "1", "-o", str(tiny_disk / "rep")])
    assert code == 2 and "cannot" in one_line(err), err
    code, _, err = run_cli(
        ["show", trained_folder("skim"), "--text", "a good film", "--html", str(tiny_disk / "p.html")]
    )
    # The staged write (keras_skim.output_folder) names the page and the full disk in one line.
    assert code == 2 and "p.html: cannot write" in one_line(err) and "No space left" in one_line(err), err
    assert sorted(os.listdir(tiny_disk)) == ["filler"]


def test_tokenizer_larger_than_the_embedding(trained_folder, tmp_path):
    from keras_skim.datasets.tokenizer import Tokenizer

    folder = tmp_path / "model"
    shutil.copytree(trained_folder("skim"), folder)
    vocabulary = Tokenizer.load(folder / "tokenizer.json").vocabulary
    Tokenizer(vocabulary=vocabulary + [f"extra{i}" for i in range(30_000)]).save(str(folder / "tokenizer.json"))
    code, _, err = run_cli(["show", str(folder), "--text", "extra29999 extra29998"])
    assert code == 2 and "the model's embedding takes" in one_line(err), err


def test_train_config_max_length_out_of_range(trained_folder, tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(trained_folder("skim"), folder)
    config = json.loads((folder / "train_config.json").read_text())
    config["arguments"]["max_length"] = 10**12
    (folder / "train_config.json").write_text(json.dumps(config))
    for command in (["evaluate", str(folder)], ["export", str(folder), "-o", str(tmp_path / "exp")]):
        code, _, err = run_cli(command)
        assert code == 2 and '"arguments"."max_length"' in one_line(err), err
    assert not (tmp_path / "exp").exists()


def test_show_file_on_a_fifo_is_refused_without_waiting(tmp_path):
    # Issue 30, row 5: `show --file p.txt` on a FIFO hung in open(); now refused unopened.
    import threading

    from keras_skim.cli.errors import CliError
    from keras_skim.cli.show_command import read_text_file

    fifo = tmp_path / "p.txt"
    os.mkfifo(fifo)
    outcome = []

    def read():
        try:
            read_text_file(str(fifo))
        except CliError as err:
            outcome.append(str(err))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(20)
    if reader.is_alive():  # unblock the hung open() so the test run ends
        with open(fifo, "wb"):
            pass
    assert outcome and "p.txt: is a FIFO (named pipe), not a regular file" in one_line(outcome[0]), outcome


@pytest.mark.parametrize("folder", ["assets/", "variables/"])
def test_a_keras_archive_of_many_members_each_under_the_limit_is_refused(tmp_path, folder):
    # Issue 30, row 11: 215 zero-filled 16 MiB members passed each member's check; Keras
    # inflated 3.6 GB of assets/ to TMPDIR. (Fewer members here: the total is what counts.)
    from keras_skim.model_io import MAX_CONFIG_BYTES, ModelLoadError, check_archive

    bomb = tmp_path / "model.keras"
    zeros = b"\0" * MAX_CONFIG_BYTES
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("config.json", "{}")
        for i in range(3):
            archive.writestr(f"{folder}member{i}", zeros)
    with pytest.raises(ModelLoadError, match="inflate") as info:
        check_archive(str(bomb))
    assert str(bomb) in one_line(str(info.value))
