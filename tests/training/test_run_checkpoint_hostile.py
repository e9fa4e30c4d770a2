"""A training run's checkpoint against hostile files (issue 30, rows 7 and 8):
every corruption of `checkpoint.npz` is one `CheckpointUnreadable` line
(which says how to start over), and a run folder or cache that cannot be
written is one line before any training. TensorFlow-free."""

import io
import os
import pathlib
import zipfile

import numpy as np
import pytest

from keras_skim.datasets import cache
from keras_skim.datasets.errors import CacheError, DataSourceError
from keras_skim.training.run_checkpoint import (
    CheckpointMismatch,
    CheckpointUnreadable,
    CheckpointUnwritable,
    RunCheckpoint,
    runs_root,
)
from tests.assertions import one_line

STATE = {"version": 1, "settings": {"seed": 0}, "phase": "speed_read", "phase_step": 3, "history": []}


@pytest.fixture
def saved(tmp_path):
    checkpoint = RunCheckpoint(tmp_path / "run")
    checkpoint.save(STATE, {"model/0": np.arange(64, dtype="float32"), "model/1": np.ones((3, 4))})
    return checkpoint


def _truncate(size):
    def corrupt(path):
        with open(path, "r+b") as f:
            f.truncate(size)

    return corrupt


def _flip(offset):
    def corrupt(path):
        data = bytearray(path.read_bytes())
        data[offset % len(data)] ^= 0x41
        path.write_bytes(bytes(data))

    return corrupt


def _rewrite(members, compression=zipfile.ZIP_STORED):
    def corrupt(path):
        path.unlink()
        with zipfile.ZipFile(path, "w", compression=compression) as archive:
            for name, data in members.items():
                archive.writestr(name, data)

    return corrupt


def _npy(value):
    buffer = io.BytesIO()
    np.save(buffer, value, allow_pickle=True)
    return buffer.getvalue()


def _claims_more_than_it_holds():
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }"
    header = header.ljust(118) + "\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + b"\0" * 8


def _deep_state():
    return _npy(np.array("[" * 100_000 + "]" * 100_000))


EMPTY_STATE = _npy(np.array("{}"))
CORRUPTIONS = {
    "empty": _truncate(0),
    "truncated to 10 bytes": _truncate(10),
    "truncated to 100 bytes": _truncate(100),
    "truncated to half": _truncate(700),
    "last byte cut": lambda path: _truncate(path.stat().st_size - 1)(path),
    "a flipped byte in the first array": _flip(120),
    "a flipped byte in the middle": _flip(600),
    "a flipped byte in the directory": _flip(-30),
    "not a zip": lambda path: path.write_bytes(b"hello world" * 100),
    "no state": _rewrite({"model/0.npy": _npy(np.zeros(2))}),
    "state not JSON": _rewrite({"state.json.npy": _npy(np.array("{oops"))}),
    "state a list": _rewrite({"state.json.npy": _npy(np.array("[1, 2]"))}),
    "state nested deeply": _rewrite({"state.json.npy": _deep_state()}),
    "an object array": _rewrite({"state.json.npy": EMPTY_STATE, "model/0.npy": _npy(np.array([{}, 1]))}),
    "a string array": _rewrite({"state.json.npy": EMPTY_STATE, "model/0.npy": _npy(np.array(["a"]))}),
    "a header claiming 8 TB": _rewrite({"state.json.npy": EMPTY_STATE, "model/0.npy": _claims_more_than_it_holds()}),
    "a deflated member": _rewrite({"state.json.npy": EMPTY_STATE}, zipfile.ZIP_DEFLATED),
    "a member that is not an array": _rewrite({"state.json.npy": EMPTY_STATE, "notes.txt": b"hi"}),
    "a folder": lambda path: (path.unlink(), path.mkdir()),
    "a FIFO": lambda path: (path.unlink(), os.mkfifo(path)),
    "/dev/zero": lambda path: (path.unlink(), path.symlink_to("/dev/zero")),
}


@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
def test_a_corrupt_checkpoint_is_one_line_that_says_how_to_start_over(saved, corruption):
    path = pathlib.Path(saved.path)
    CORRUPTIONS[corruption](path)
    with pytest.raises(CheckpointUnreadable) as info:
        saved.load()
    message = one_line(str(info.value))
    assert message.startswith(str(path)) and "start the run over with --force" in message, message
    assert isinstance(info.value, CheckpointMismatch)  # the CLI's one-line catch


def test_a_state_lacking_a_key_or_of_another_type_is_refused(saved):
    state, _ = saved.load()
    saved.check_state(state, {"phase": "full_read", "phase_step": 0, "settings": {}})
    with pytest.raises(CheckpointUnreadable, match="lacks 'data_epoch'"):
        saved.check_state(state, {"data_epoch": 0})
    with pytest.raises(CheckpointUnreadable, match="'history' is a array, expected a number"):
        saved.check_state(state, {"history": 0})


def test_a_good_checkpoint_still_loads(saved):
    state, arrays = saved.load()
    assert state == STATE and arrays["model/0"].tolist() == list(range(64))


def test_a_run_name_too_long_is_one_line_before_training(tmp_path):
    checkpoint = RunCheckpoint(tmp_path / ("r" * 300))
    with pytest.raises(CheckpointUnwritable, match="File name too long"):
        checkpoint.check_writable()


def test_a_failed_checkpoint_write_is_one_line_and_keeps_the_last_one(saved, monkeypatch):
    def full_disk(file, **arrays):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez", full_disk)
    with pytest.raises(CheckpointUnwritable, match="No space left on device"):
        saved.save({"step": 9}, {"w": np.zeros(2)})
    assert sorted(os.listdir(saved.run_dir)) == ["checkpoint.npz"]  # no temporary left
    monkeypatch.undo()
    assert saved.load()[0] == STATE


@pytest.mark.parametrize("kind", ["a file", "under a file"])
def test_a_cache_path_that_cannot_be_a_folder_is_one_line(tmp_path, monkeypatch, kind):
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    monkeypatch.setenv(cache.CACHE_ENV, str(blocker if kind == "a file" else blocker / "cache"))
    with pytest.raises(CacheError) as info:
        runs_root()
    assert isinstance(info.value, DataSourceError)  # the CLI's one-line data catch
    assert str(blocker) in one_line(str(info.value)) and cache.CACHE_ENV in str(info.value)


def test_a_cache_write_on_a_full_disk_is_one_line(tmp_path, monkeypatch):
    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cache, "atomic_write_bytes", full_disk)
    with pytest.raises(CacheError, match="No space left on device"):
        cache.store_artefact(tmp_path / "x.json.gz", b"data")


def test_train_with_a_cache_that_is_a_file_is_one_line_before_training(tmp_path, monkeypatch, capsys):
    from keras_skim.cli.main import main

    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    monkeypatch.setenv(cache.CACHE_ENV, str(blocker))
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "d.csv"
    data.write_text("text,label\n" + "".join(f"t {i},{i % 2}\n" for i in range(20)), encoding="utf-8")
    argv = ["train", "--no-glove", "--cell", "sj-lstm", "--data", str(data), "-o", "out", "--run-name", "r"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert one_line(err).startswith("keras-skim train: error: ") and "cannot create the cache folder" in err, err
    assert not os.path.exists(tmp_path / "out")
