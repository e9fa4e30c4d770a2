"""The files keras-skim writes and reads, in one place (no TensorFlow).

Two folders travel between the rooms of the library and the Android app:

* the **model folder** that `keras-skim train` writes: `model.keras` (or a
  `model.h5` a user brings), `tokenizer.json`, `train_config.json`;
* the **export folder** that `keras-skim export` writes: `model.tflite`,
  `tokenizer.json`, `metadata.json`.

Every reader and writer of these files goes through this module: the file
names, the keys of `train_config.json` and `metadata.json`, the format
version, the TFLite signature and tensor names, the custom op names and the
token-id semantics are defined here and nowhere else.

It also holds the one way keras-skim writes an output folder
(`staged_output_dir`): into a temporary folder that replaces the target
only when complete, tagged with a marker file, so that `--force` replaces
only folders keras-skim wrote and never deletes what a user put there.
"""

import contextlib
import dataclasses
import json
import math
import os
import shutil
import tempfile

from keras_skim.version import __version__

# ---------------------------------------------------------------- file names
MODEL_FILES = ("model.keras", "model.h5")
MODEL_FILE = MODEL_FILES[0]
TOKENIZER_FILE = "tokenizer.json"
TRAIN_CONFIG_FILE = "train_config.json"
TFLITE_FILE = "model.tflite"
METADATA_FILE = "metadata.json"
MARKER_FILE = ".keras-skim-output.json"

# ------------------------------------------------------- the exported model
METADATA_FORMAT = "keras_skim.export"
# 2: `padding_id` and `threshold_rule` recorded; id 0 skipped by every backend.
METADATA_VERSION = 2
SIGNATURE_KEY = "serving_default"
INPUT_TOKEN_IDS = "token_ids"
INPUT_THRESHOLD = "threshold"
OUTPUT_LOGITS = "logits"
OUTPUT_READ_MASK = "read_mask"
OUTPUT_READ_COUNT = "read_count"
OUTPUT_VISITED_COUNT = "visited_count"  # jump models: words not jumped over
# Custom LiteRT ops, by the model kind that uses them.
CUSTOM_OPS = {"skim_lstm": "KerasSkimLSTM", "structural_jump_lstm": "KerasSjLSTM", "skim_gru": "KerasSkimGRU"}

# Codes of the per-token mask output (`read_mask`), the same in the Python
# runtime, `keras-skim show` and the app. Skim models use 0 and 1 only (their
# padding is 0); a jump model (Structural-Jump-LSTM) uses all four (its
# padding and punctuation are 3).
TOKEN_SKIMMED = 0  # skimmed by the small cell, or skipped by a jump model's skip agent (skim models: and padding)
TOKEN_READ = 1  # read by the big cell (the LSTM)
TOKEN_JUMPED = 2  # jumped over: never touched
TOKEN_NOT_A_WORD = 3  # punctuation that steers a jump model's jumps, never read, and a jump model's padding
TOKEN_CODES = {TOKEN_SKIMMED: "skimmed", TOKEN_READ: "read", TOKEN_JUMPED: "jumped", TOKEN_NOT_A_WORD: "not a word"}

# Token ids: the tokenizer never emits 0; a 0 in the input is padding, which
# every path (Keras with mask_zero, both export backends, the runtime) skips:
# the state is kept, the token is neither read nor skimmed (mask 0), and it is
# not counted.
PADDING_ID = 0
UNKNOWN_ID = 1
PADDING_RULE = "id 0 is padding: the step is skipped (state kept, read_mask 0, not counted as a token)"
# The read decision, the same in Keras, in both backends and in the runtime.
THRESHOLD_RULE = (
    "read a token iff l_read - l_skim >= log(t / (1 - t)), i.e. p_read >= t: t = 0 reads "
    "every token, t >= 1 skims every token; a lower t reads more. The Skim-RNN paper's "
    "threshold (Seo et al. 2018, Figures 5 and 10) is on p_skim: ours is 1 minus the paper's. "
    "NaN is refused by the runtime (the graph itself would skim every token)"
)


class ContractError(ValueError):
    """A file that breaks its contract; the message is one line naming it."""


class OutputRefused(ContractError):
    """An output folder keras-skim may not write or replace; one line."""


# ---------------------------------------------------------------- thresholds
def check_threshold(value, name="threshold"):
    """Returns `value` as a float, or raises ContractError: the read
    threshold is a number >= 0 (not NaN, not infinite)."""
    if isinstance(value, bool):
        raise ContractError(f"{name} must be a number >= 0; got {value!r}")
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ContractError(f"{name} must be a number >= 0; got {value!r}") from None
    if not math.isfinite(value) or value < 0.0:
        raise ContractError(f"{name} must be a finite number >= 0; got {value!r}")
    return value


def threshold_cut(threshold):
    """The logit-difference cut of a threshold, as float: read iff
    l_read - l_skim >= cut (-inf at 0, +inf at >= 1). The float32 graphs
    compute the same with float32 logs."""
    threshold = float(threshold)
    if threshold <= 0.0:
        return -math.inf
    if threshold >= 1.0:
        return math.inf
    return math.log(threshold) - math.log1p(-threshold)


# -------------------------------------------------------------- JSON helpers
def read_json(path, what):
    """Parses a JSON object file; ContractError (one line) otherwise."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise ContractError(f"{path}: no such file (expected {what})") from None
    except IsADirectoryError:
        raise ContractError(f"{path}: is a folder (expected {what})") from None
    except OSError as err:
        raise ContractError(f"{path}: cannot read ({err.strerror}; expected {what})") from None
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as err:
        reason = " ".join(str(err).split())[:120]
        raise ContractError(f"{path}: not valid JSON ({reason}; expected {what})") from None
    if not isinstance(value, dict):
        raise ContractError(f"{path}: expected {what} (a JSON object), got {type(value).__name__}")
    return value


def write_json(path, value):
    """Writes `value` as indented UTF-8 JSON (inside a staged folder)."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=1, ensure_ascii=False)
        f.write("\n")


# -------------------------------------------------------------- model folder
@dataclasses.dataclass
class ModelFolder:
    """Where the files of a trained model are. `tokenizer` and
    `train_config` are None when absent."""

    folder: str
    model: str
    tokenizer: str = None
    train_config: str = None


def resolve_model(path):
    """A model folder or a `.keras`/`.h5` file -> `ModelFolder`.

    A file's siblings `tokenizer.json` / `train_config.json` are its
    tokenizer and training record when they exist.
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        for name in MODEL_FILES:
            if os.path.isfile(os.path.join(path, name)):
                folder, model = path, os.path.join(path, name)
                break
        else:
            raise ContractError(f"{path}: folder holds no {' or '.join(MODEL_FILES)}")
    elif os.path.exists(path):
        folder, model = os.path.dirname(os.path.abspath(path)), path
    else:
        raise ContractError(f"{path}: no such model file or folder")
    tokenizer = os.path.join(folder, TOKENIZER_FILE)
    config = os.path.join(folder, TRAIN_CONFIG_FILE)
    return ModelFolder(
        folder,
        model,
        tokenizer if os.path.isfile(tokenizer) else None,
        config if os.path.isfile(config) else None,
    )


def tokenizer_file(path):
    """The tokenizer file named by `--tokenizer PATH`: a tokenizer.json, or a
    folder holding one. ContractError (one line) otherwise."""
    path = os.fspath(path)
    candidate = os.path.join(path, TOKENIZER_FILE) if os.path.isdir(path) else path
    if not os.path.isfile(candidate):
        raise ContractError(f"{path}: no such tokenizer (expected a {TOKENIZER_FILE} file or a folder holding one)")
    if not candidate.endswith(".json"):
        raise ContractError(f"{path}: not a tokenizer (expected a {TOKENIZER_FILE} file)")
    return candidate


@dataclasses.dataclass
class TrainConfig:
    """What `train_config.json` says about how a model was trained.

    `arguments` are the training arguments as given (`dataset`,
    `max_length`, `cell`, ...); `results` is the rest of the record
    (history, validation and test results, versions).
    """

    path: str
    arguments: dict
    results: dict

    @property
    def dataset(self):
        return self.arguments.get("dataset")

    @property
    def max_length(self):
        value = self.arguments.get("max_length")
        return int(value) if isinstance(value, int) and value > 0 else None

    @property
    def data(self):
        """The training data's own record (source, classes, split), if any."""
        return self.results.get("data") or {}

    def as_dict(self):
        """The whole record, as the file holds it."""
        return train_config_record(self.arguments, **self.results)


def read_train_config(path):
    """Reads a model folder's `train_config.json` -> `TrainConfig`."""
    record = read_json(path, f"a {TRAIN_CONFIG_FILE} written by keras-skim train")
    arguments = record.get("arguments")
    if not isinstance(arguments, dict):
        raise ContractError(
            f'{path}: no "arguments" object (expected a {TRAIN_CONFIG_FILE} written by keras-skim train)'
        )
    max_length = arguments.get("max_length")
    if max_length is not None and (isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 1):
        raise ContractError(f'{path}: "arguments"."max_length" must be a positive integer; got {max_length!r}')
    results = {k: v for k, v in record.items() if k != "arguments"}
    return TrainConfig(os.fspath(path), arguments, results)


def train_config_record(arguments, **results):
    """The JSON object of `train_config.json`: the training `arguments` and
    the results (history, validation, test, versions, ...)."""
    return {"arguments": dict(arguments), **results}


# ------------------------------------------------------------- export folder
@dataclasses.dataclass
class ExportFolder:
    folder: str
    model: str
    metadata: str
    tokenizer: str = None


def resolve_export(path):
    """An export folder or its `model.tflite` -> `ExportFolder`."""
    path = os.path.abspath(os.fspath(path))
    if os.path.isdir(path):
        folder, model = path, os.path.join(path, TFLITE_FILE)
    else:
        folder, model = os.path.dirname(path), path
    if not os.path.isfile(model):
        raise ContractError(f"{model}: no such file (expected an exported {TFLITE_FILE})")
    tokenizer = os.path.join(folder, TOKENIZER_FILE)
    return ExportFolder(
        folder, model, os.path.join(folder, METADATA_FILE), tokenizer if os.path.isfile(tokenizer) else None
    )


def read_metadata(path):
    """Reads and checks an export's `metadata.json` (a dict)."""
    what = f"{METADATA_FORMAT} metadata written by keras-skim export"
    metadata = read_json(path, what)
    if metadata.get("format") != METADATA_FORMAT:
        raise ContractError(f"{path}: not {what} (format {metadata.get('format')!r})")
    version = metadata.get("version")
    if version not in (1, METADATA_VERSION):
        raise ContractError(
            f"{path}: metadata version {version!r} is not supported (expected {METADATA_VERSION}); "
            "export the model again"
        )
    for key, kind in (("model_kind", str), ("vocabulary_size", int), ("num_classes", int)):
        if not isinstance(metadata.get(key), kind):
            raise ContractError(f"{path}: {key!r} missing or not a {kind.__name__} ({what})")
    return metadata


# ------------------------------------------------------------ output folders
def _marker():
    return {"written_by": "keras-skim", "version": __version__}


def is_keras_skim_output(path):
    """Whether `path` is a folder keras-skim wrote (it holds the marker)."""
    marker = os.path.join(path, MARKER_FILE)
    try:
        with open(marker, encoding="utf-8") as f:
            return json.load(f).get("written_by") == "keras-skim"
    except (OSError, ValueError, AttributeError):
        return False


def _inside(path, folder):
    """Whether `path` is `folder` or lies inside it (both absolute, real)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def check_output_folder(path, force=False, inputs=()):
    """Checks that keras-skim may write the folder `path` (replacing it with
    `force`), or raises OutputRefused with one line.

    Refused always: the current folder, the home folder, `/`, a folder that
    is or holds one of `inputs` (files or folders the command reads), a
    parent of the current folder. Refused without `force`: anything that
    exists. Refused even with `force`: a file, and a non-empty folder
    keras-skim did not write (it has no marker file).
    """
    target = os.path.realpath(os.fspath(path))
    shown = os.path.abspath(os.fspath(path))
    protected = {os.path.realpath(os.sep), os.path.realpath(os.path.expanduser("~")), os.path.realpath(os.getcwd())}
    if target in protected or _inside(os.path.realpath(os.getcwd()), target):
        raise OutputRefused(
            f"{shown}: refusing to write into the current, home or root folder or a parent of "
            "the current folder (name a new folder)"
        )
    for item in inputs:
        if item is None:
            continue
        source = os.path.realpath(os.fspath(item))
        if _inside(source, target):
            raise OutputRefused(
                f"{shown}: the output folder would replace the input {os.path.abspath(os.fspath(item))} "
                "(choose another output folder)"
            )
    if not os.path.lexists(shown):
        _check_creatable(shown)
        return
    if not force:
        raise OutputRefused(f"{shown} already exists (use --force to replace it)")
    if not os.path.isdir(shown) or os.path.islink(shown):
        raise OutputRefused(f"{shown} exists and is not a folder keras-skim wrote; --force will not delete it")
    if os.listdir(shown) and not is_keras_skim_output(shown):
        raise OutputRefused(
            f"{shown} holds files keras-skim did not write (no {MARKER_FILE}); --force only replaces "
            "keras-skim's own output folders: remove it yourself or choose another folder"
        )


def _check_creatable(path):
    """Refuses (one line) a new folder whose nearest existing ancestor is
    not a writable folder, before any work is done."""
    ancestor = os.path.dirname(path)
    while not os.path.lexists(ancestor):
        ancestor = os.path.dirname(ancestor)
    if not os.path.isdir(ancestor):
        raise OutputRefused(f"{path}: cannot create the output folder ({ancestor} is not a folder)")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise OutputRefused(f"{path}: cannot create the output folder ({ancestor} is not writable)")


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def apply_umask(path, directory=False):
    """Gives a file made by mkstemp/mkdtemp (0600/0700) the permissions a
    plain open/mkdir would have given it."""
    os.chmod(path, (0o777 if directory else 0o666) & ~_umask())


@contextlib.contextmanager
def staged_output_dir(path, force=False, inputs=()):
    """Yields a temporary folder that replaces `path` only on success.

    Checked first with `check_output_folder` (same arguments). The finished
    folder holds the marker file, has the permissions of a plain `mkdir`, and
    appears at once; nothing is left behind if the block fails.

    Raises:
        OutputRefused: the folder may not be written (one line).
    """
    check_output_folder(path, force=force, inputs=inputs)
    path = os.path.abspath(os.fspath(path))
    parent = os.path.dirname(path)
    try:
        os.makedirs(parent, exist_ok=True)
        stage = tempfile.mkdtemp(prefix=".keras-skim-", dir=parent)
    except OSError as err:
        raise OutputRefused(f"{path}: cannot create the output folder ({err.strerror})") from None
    try:
        yield stage
        write_json(os.path.join(stage, MARKER_FILE), _marker())
        for root, _dirs, files in os.walk(stage):
            apply_umask(root, directory=True)
            for name in files:
                apply_umask(os.path.join(root, name))
        if os.path.lexists(path):
            old = tempfile.mkdtemp(prefix=".keras-skim-old-", dir=parent)
            os.replace(path, os.path.join(old, "replaced"))
            os.replace(stage, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(stage, path)
    finally:
        if os.path.exists(stage):
            shutil.rmtree(stage, ignore_errors=True)


# ---------------------------------------------------------- single-file outputs
HTML_MARKER = "<!-- written by keras-skim show -->"


def check_output_file(path, force=False, marker=None):
    """Checks that keras-skim may write the file `path`: refused (one line)
    if it is a folder, if it exists without `force`, or, with `force`, if
    it is not a file keras-skim wrote (its text lacks `marker`)."""
    shown = os.path.abspath(os.fspath(path))
    if os.path.isdir(shown):
        raise OutputRefused(f"{shown}: is a folder (expected a file path to write)")
    if not os.path.lexists(shown):
        parent = os.path.dirname(shown)
        if not os.path.isdir(parent):
            raise OutputRefused(f"{shown}: the folder {parent} does not exist")
        if not os.access(parent, os.W_OK):
            raise OutputRefused(f"{shown}: the folder {parent} is not writable")
        return
    if not force:
        raise OutputRefused(f"{shown} already exists (use --force to replace it)")
    if marker is not None:
        try:
            with open(shown, "rb") as f:
                written_by_us = marker.encode() in f.read(4096)
        except OSError:
            written_by_us = False
        if not written_by_us:
            raise OutputRefused(f"{shown} was not written by keras-skim; --force will not replace it")


def write_output_file(path, data, force=False, marker=None):
    """Writes bytes to `path` atomically after `check_output_file`."""
    check_output_file(path, force=force, marker=marker)
    path = os.path.abspath(os.fspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".keras-skim-", dir=os.path.dirname(path))
    except OSError as err:
        raise OutputRefused(f"{path}: cannot write ({err.strerror})") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        apply_umask(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
