"""A training run's checkpoint: one file, replaced atomically, verified
before it is resumed."""

import hashlib
import json
import os
import stat
import tempfile
import zipfile

import numpy as np

from keras_skim import contract_fields

CHECKPOINT_FILE = "checkpoint.npz"
_STATE_KEY = "state.json"
_START_OVER = "start the run over with --force (without --resume)"
# np.load's readers of the .npy header versions np.savez writes.
_NPY_HEADERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}


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
        return os.path.lexists(self.path)

    def check_writable(self):
        """Creates the run folder and writes a file there, before any
        training: a name too long, a cache path that is a file or a full
        disk is one line now (`CheckpointUnwritable`), not a traceback at
        the first checkpoint."""
        try:
            os.makedirs(self.run_dir, exist_ok=True)
            handle, probe = tempfile.mkstemp(prefix=".checkpoint-", suffix=".tmp", dir=self.run_dir)
            os.close(handle)
            os.remove(probe)
        except OSError as err:
            raise CheckpointUnwritable(self.run_dir, err) from None

    def save(self, state, arrays):
        """Replaces the checkpoint with `state` (JSON-able) and `arrays` (name -> ndarray).

        Raises:
            CheckpointUnwritable: The file could not be written (the previous
                checkpoint, if any, is kept whole).
        """
        if _STATE_KEY in arrays:
            raise ValueError(f"{_STATE_KEY!r} is reserved for the state")
        payload = {name: np.asarray(value) for name, value in arrays.items()}
        payload[_STATE_KEY] = np.array(json.dumps(state))
        temporary = None
        try:
            os.makedirs(self.run_dir, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=".checkpoint-", suffix=".tmp", dir=self.run_dir)
            with os.fdopen(handle, "wb") as f:
                np.savez(f, **payload)
                f.flush()
                os.fsync(f.fileno())
            os.replace(temporary, self.path)
        except OSError as err:
            _remove_quietly(temporary)
            raise CheckpointUnwritable(self.run_dir, err) from None
        except BaseException:
            _remove_quietly(temporary)
            raise
        _fsync_folder(self.run_dir)

    def load(self):
        """`(state, arrays)` of the last save, verified first.

        The file must be a regular file, an uncompressed zip whose members
        all pass their CRC check, holding `.npy` arrays of numbers whose
        headers fit their members (so no allocation exceeds the file) and
        the state, a JSON object (see also `check_state`).

        Raises:
            CheckpointUnreadable: Any of that fails (one line).
        """
        try:
            _check_archive(self.path)
            with np.load(self.path, allow_pickle=False) as stored:
                arrays = {name: stored[name] for name in stored.files if name != _STATE_KEY}
                state = contract_fields.parse_json(str(stored[_STATE_KEY]))
        except Exception as err:  # noqa: BLE001 - any failure to parse the file means it is not a checkpoint
            raise CheckpointUnreadable(self.path, _reason(err)) from None
        problem = _state_problem(state, None) or _arrays_problem(arrays)
        if problem:
            raise CheckpointUnreadable(self.path, problem)
        return state, arrays

    def check_state(self, state, template):
        """Refuses a loaded state lacking a key of `template` (a fresh
        state) or holding a value of another JSON type there.

        Raises:
            CheckpointUnreadable: One line naming the key.
        """
        problem = _state_problem(state, template)
        if problem:
            raise CheckpointUnreadable(self.path, problem)

    def open(self, version, settings, resume, restart):
        """The checkpoint a run starts from, after checking the run folder
        can be written: `(state, arrays)` to resume, or None to start
        afresh (no checkpoint, or `restart`, which deletes it).

        Args:
            version: the checkpoint format the run writes (`state["version"]`).
            settings: what the run was started with (JSON-able); a
                checkpoint written with other settings is refused.
            resume: continue from the checkpoint when there is one.
            restart: delete the checkpoint and start over.

        Raises:
            RunExists: a checkpoint and neither `resume` nor `restart`.
            CheckpointMismatch: another format or other settings (one line
                naming each difference).
            CheckpointUnreadable, CheckpointUnwritable: see `load`, `check_writable`.
        """
        self.check_writable()  # a bad run name or cache: one line before any training
        if not self.exists():
            return None
        if restart:
            self.remove()
            return None
        if not resume:
            raise RunExists(f"{self.path} holds a checkpoint of this run: resume it (--resume) or start over (--force)")
        state, arrays = self.load()  # verified: a regular file, CRCs, array headers
        if state.get("version") != version:
            raise CheckpointMismatch(f"{self.path}: checkpoint version {state.get('version')!r}")
        self.check_state(state, {"settings": settings})
        differing = settings_differences(state["settings"], json.loads(json.dumps(settings)))
        if differing:
            raise CheckpointMismatch(
                f"{self.path} was written with other settings ({', '.join(differing)}): "
                "resume with the command that started the run, or start over (--force)"
            )
        return state, arrays

    def remove(self):
        """Deletes the checkpoint file (only it: the folder may hold other files)."""
        if self.exists():
            try:
                os.remove(self.path)
            except OSError as err:  # e.g. a folder in its place
                raise CheckpointUnwritable(self.run_dir, err) from None


def named_arrays(variables, prefix):
    """`{prefix/i: value}` of a list of variables (or arrays), for `RunCheckpoint.save`."""
    return {f"{prefix}/{i}": np.array(v.numpy() if hasattr(v, "numpy") else v) for i, v in enumerate(variables)}


def assign_arrays(variables, arrays, prefix):
    """Assigns the checkpoint's `prefix/i` arrays to `variables`, each of its shape.

    Raises:
        CheckpointMismatch: another number of variables, or another shape (one line).
    """
    names = [name for name in arrays if name.startswith(prefix + "/")]
    if len(names) != len(variables):
        raise CheckpointMismatch(f"the checkpoint holds {len(names)} {prefix} variables, the run has {len(variables)}")
    for i, variable in enumerate(variables):
        value = arrays[f"{prefix}/{i}"]
        if tuple(value.shape) != tuple(variable.shape):
            raise CheckpointMismatch(
                f"{prefix} variable {variable.path}: checkpoint shape {value.shape}, model shape {variable.shape}"
            )
        variable.assign(value)


def stored_weights(arrays, prefix, weights, path, what):
    """The checkpoint's arrays `prefix/i`, each present with its weight's shape.

    Raises:
        CheckpointUnreadable: one missing or of another shape (`what` names them).
    """
    stored = [arrays.get(f"{prefix}/{i}") for i in range(len(weights))]
    if any(value is None or tuple(value.shape) != tuple(w.shape) for value, w in zip(stored, weights)):
        raise CheckpointUnreadable(path, f"{what} do not fit the model")
    return stored


def settings_differences(saved, current, prefix=""):
    """`["key: saved then, current now", ...]` of two settings dicts, nested keys dotted."""
    out = []
    for key in sorted(set(saved) | set(current)):
        a, b = saved.get(key), current.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            out += settings_differences(a, b, f"{prefix}{key}.")
        elif a != b:
            out.append(f"{prefix}{key}: {a!r} then, {b!r} now")
    return out


def _remove_quietly(path):
    if path is not None:
        try:
            os.remove(path)
        except OSError:
            pass


def _reason(err):
    text = " ".join(str(err).split())[:160]
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def _check_archive(path):
    """Checks the zip of a checkpoint before NumPy reads it (see `load`)."""
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise ValueError(f"is {contract_fields.file_kind(mode)}, not a regular file")
    with zipfile.ZipFile(path) as archive:
        members = archive.infolist()
        if _STATE_KEY + ".npy" not in archive.namelist():
            raise ValueError("no run state in it")
        for info in members:
            if info.compress_type != zipfile.ZIP_STORED or not info.filename.endswith(".npy"):
                raise ValueError(f"member {info.filename!r} is not an array np.savez writes")
        broken = archive.testzip()  # every member read through and its CRC compared
        if broken is not None:
            raise ValueError(f"member {broken!r} fails its CRC check")
        for info in members:
            with archive.open(info) as member:
                reader = _NPY_HEADERS.get(np.lib.format.read_magic(member))
                if reader is None:
                    raise ValueError(f"member {info.filename!r}: not a .npy header np.savez writes")
                shape, _, dtype = reader(member)
                if dtype.hasobject or int(np.prod(shape, dtype=object)) * dtype.itemsize > info.file_size:
                    raise ValueError(f"member {info.filename!r}: its header claims more data than it holds")


def _state_problem(state, template):
    if not isinstance(state, dict):
        return "its run state is not a JSON object"
    for key, fresh in (template or {}).items():
        if key not in state:
            return f"its run state lacks {key!r}"
        if fresh is not None and _json_type(state[key]) != _json_type(fresh):
            return f"its run state's {key!r} is a {_json_type(state[key])}, expected a {_json_type(fresh)}"
    return None


def _json_type(value):
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {dict: "object", list: "array", str: "string"}.get(type(value), "null")


def _arrays_problem(arrays):
    for name, value in arrays.items():
        if value.dtype.kind not in "biuf":
            return f"array {name!r} holds {value.dtype}, not numbers"
    return None


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


class CheckpointError(RuntimeError):
    """A checkpoint that cannot be resumed or written; the message is one line."""


class RunExists(CheckpointError):
    """A run folder holds a checkpoint and neither resuming nor restarting was asked for."""


class CheckpointMismatch(CheckpointError):
    """A checkpoint was written by a run with other settings than the one resuming it."""


class CheckpointUnreadable(CheckpointMismatch):
    """A checkpoint file that is not one: truncated, edited, or not a regular file."""

    def __init__(self, path, reason):
        super().__init__(f"{path}: not a checkpoint keras-skim can resume ({reason}); {_START_OVER}")


class CheckpointUnwritable(CheckpointError):
    """The run folder or its checkpoint cannot be written (a name too long,
    a cache path that is a file, a full disk)."""

    def __init__(self, run_dir, err):
        reason = err.strerror or str(err)
        super().__init__(
            f"{run_dir}: cannot write the run's checkpoint ({reason}); expected a writable folder "
            "(a shorter --run-name, or KERAS_SKIM_CACHE naming a writable folder with free space)"
        )


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
