"""The runtime's promises on hostile input and use: a runner shared by
threads, exports that open but fail when they run, inconsistent export
folders, endless files; each a clean result or one line, never a crash."""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from tests.assertions import one_line
from tests.export.helpers import run_cli

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_SHARED_RUNNER = r"""
import sys, threading
import numpy as np
from keras_skim.runtime import SkimRunner
runner = SkimRunner(sys.argv[1])
texts = [np.arange(1, n) % runner.vocabulary_size for n in (3, 9, 17, 30)]
expected = [runner.run_ids(ids, 0.5)["logits"].copy() for ids in texts]
wrong = []
def work(k):
    for i in range(200):
        j = (i + k) % len(texts)
        if not np.array_equal(runner.run_ids(texts[j], 0.5)["logits"], expected[j]):
            wrong.append(j)
threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("WRONG", len(wrong))
"""


def test_one_runner_shared_by_eight_threads(exported):
    """The builtin backend's interpreter is not thread-safe: without the
    runner's lock this aborts the process (heap corruption)."""
    _, folder, _ = exported("skim")
    proc = subprocess.run(
        [sys.executable, "-c", _SHARED_RUNNER, folder],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=ROOT),
    )
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-1500:])
    assert proc.stdout.split()[-2:] == ["WRONG", "0"], proc.stdout


def _copy(folder, tmp_path, name="export"):
    target = tmp_path / name
    shutil.copytree(folder, target)
    return target


def _edit_metadata(folder, **changes):
    path = folder / "metadata.json"
    meta = json.loads(path.read_text())
    meta.update(changes)
    path.write_text(json.dumps(meta))


def test_an_export_that_fails_at_its_first_run_is_one_line(exported, tmp_path):
    """metadata.json claims a larger vocabulary than the graph's embedding:
    the export opens, and its first run fails inside LiteRT (a gather out
    of bounds); the runner and bench say so in one line."""
    from keras_skim.runtime import RuntimeModelError, SkimRunner

    folder = _copy(exported("lstm")[1], tmp_path)
    _edit_metadata(folder, vocabulary_size=100_000)
    runner = SkimRunner(folder)
    with pytest.raises(RuntimeModelError, match="the model failed to run") as info:
        runner.run_ids(np.array([99_000]), 0.5)
    assert "\n" not in str(info.value)
    code, _, err = run_cli(["bench", str(folder), "--samples", "2", "--repeats", "1"])
    assert code == 2 and "the model failed to run" in one_line(err), err


def test_inconsistent_export_folders_are_refused_when_opened(exported, tmp_path):
    from keras_skim.datasets.tokenizer import Tokenizer
    from keras_skim.runtime import RuntimeModelError, SkimRunner

    folder = _copy(exported("skim")[1], tmp_path)
    vocabulary = Tokenizer.load(folder / "tokenizer.json").vocabulary
    Tokenizer(vocabulary=vocabulary + [f"extra{i}" for i in range(5000)]).save(str(folder / "tokenizer.json"))
    with pytest.raises(RuntimeModelError, match="more than the model's vocabulary_size"):
        SkimRunner(folder)
    shutil.copy(os.path.join(exported("skim")[1], "tokenizer.json"), folder / "tokenizer.json")
    for threads in (0, 40_000, 1.5, True):
        with pytest.raises(RuntimeModelError, match="num_threads"):
            SkimRunner(folder, num_threads=threads)
    _edit_metadata(folder, default_threshold=float("nan"))
    with pytest.raises(RuntimeModelError, match='metadata.json: "default_threshold"'):
        SkimRunner(folder)


def test_endless_model_file_is_refused_with_bounded_memory(monkeypatch, tmp_path):
    """A model path on an endless stream reads at most the flatbuffer limit."""
    from keras_skim.runtime import interpreter_loader

    monkeypatch.setattr(interpreter_loader, "MAX_MODEL_BYTES", 1 << 20)
    with pytest.raises(ValueError, match="is a character device, not a regular file"):
        interpreter_loader.make_interpreter(model_path="/dev/zero")
    huge = tmp_path / "model.tflite"
    with open(huge, "wb") as f:
        f.truncate((1 << 20) + 1)
    with pytest.raises(ValueError, match="larger than 1048576 bytes"):
        interpreter_loader.make_interpreter(model_path=huge)
    fifo = tmp_path / "fifo.tflite"
    os.mkfifo(fifo)  # issue 30, row 5: refused unopened, no wait for a writer
    with pytest.raises(ValueError, match="is a FIFO"):
        interpreter_loader.make_interpreter(model_path=fifo)


def test_a_model_without_the_export_signature_is_refused_when_opened(exported, tmp_path):
    """A .tflite whose signature does not take token_ids and threshold
    (here renamed) is refused at once, not at its first run."""
    from keras_skim.runtime import RuntimeModelError, SkimRunner

    folder = _copy(exported("skim")[1], tmp_path)  # a skim export takes a threshold
    model = folder / "model.tflite"
    data = model.read_bytes()
    assert b"threshold\0" in data
    model.write_bytes(data.replace(b"threshold\0", b"thresxold\0"))
    with pytest.raises(RuntimeModelError, match="not a keras-skim export") as info:
        SkimRunner(folder)
    assert "\n" not in str(info.value)
