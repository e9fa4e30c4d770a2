"""A training run's checkpoint: one file, replaced atomically."""

import hashlib
import json
import os
import tempfile

import numpy as np

CHECKPOINT_FILE = "checkpoint.npz"
_STATE_KEY = "state.json"


def runs_root():
    """`<keras-skim cache>/runs` (`$KERAS_SKIM_CACHE`, default `~/.cache/keras_skim`), outside any work tree."""
    from keras_skim.datasets.cache import cache_root

    return os.path.join(os.fspath(cache_root()), "runs")


def default_run_name(output_dir):
    """The run name of a model folder: its name and a hash of its absolute path."""
    path = os.path.abspath(os.fspath(output_dir))
    digest = hashlib.sha1(path.encode("utf-8")).hexdigest()[:10]
    return f"{os.path.basename(path.rstrip(os.sep)) or 'run'}-{digest}"


class RunCheckpoint:
    """The resumable state of a training run, kept in `<run_dir>/checkpoint.npz`.

    The file holds named arrays (weights, optimizer slots, random states)
    and a JSON document (step, history, best-so-far, ...). `save` writes a
    temporary file in the same folder, flushes it to disk (`fsync`) and
    moves it over the old checkpoint with `os.replace`, which is atomic on
    one file system: a run killed at any moment leaves either the previous
    checkpoint or the new one, never half of one.

    Args:
        run_dir: folder of the run (created on the first save).

    Example:

    >>> import tempfile, numpy as np
    >>> from keras_skim.training.run_checkpoint import RunCheckpoint
    >>> checkpoint = RunCheckpoint(tempfile.mkdtemp())
    >>> checkpoint.save({"step": 3}, {"w": np.ones(2)})
    >>> state, arrays = checkpoint.load()
    >>> state["step"], arrays["w"].tolist()
    (3, [1.0, 1.0])
    """

    def __init__(self, run_dir):
        self.run_dir = os.fspath(run_dir)
        self.path = os.path.join(self.run_dir, CHECKPOINT_FILE)

    def exists(self):
        return os.path.exists(self.path)

    def save(self, state, arrays):
        """Replaces the checkpoint with `state` (JSON-able) and `arrays` (name -> ndarray)."""
        if _STATE_KEY in arrays:
            raise ValueError(f"{_STATE_KEY!r} is reserved for the state")
        os.makedirs(self.run_dir, exist_ok=True)
        payload = {name: np.asarray(value) for name, value in arrays.items()}
        payload[_STATE_KEY] = np.array(json.dumps(state))
        handle, temporary = tempfile.mkstemp(prefix=".checkpoint-", suffix=".tmp", dir=self.run_dir)
        try:
            with os.fdopen(handle, "wb") as f:
                np.savez(f, **payload)
                f.flush()
                os.fsync(f.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            if os.path.exists(temporary):
                os.remove(temporary)
            raise
        _fsync_folder(self.run_dir)

    def load(self):
        """`(state, arrays)` of the last save."""
        with np.load(self.path, allow_pickle=False) as stored:
            arrays = {name: stored[name] for name in stored.files if name != _STATE_KEY}
            state = json.loads(str(stored[_STATE_KEY]))
        return state, arrays

    def remove(self):
        """Deletes the checkpoint file (only it: the folder may hold other files)."""
        if self.exists():
            os.remove(self.path)


def _fsync_folder(folder):
    # The rename itself is durable only once the folder entry is on disk.
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


class RunExists(RuntimeError):
    """A run folder holds a checkpoint and neither resuming nor restarting was asked for."""


class CheckpointMismatch(RuntimeError):
    """A checkpoint was written by a run with other settings than the one resuming it."""


class TrainingInterrupted(RuntimeError):
    """Training stopped early (a signal or a step limit) after writing a checkpoint.

    Attributes:
        run_dir: the run folder holding the checkpoint.
        phase, step: where the run stopped.
    """

    def __init__(self, run_dir, phase, step):
        super().__init__(f"training stopped in {phase} at step {step}; checkpoint in {run_dir}")
        self.run_dir = run_dir
        self.phase = phase
        self.step = step
