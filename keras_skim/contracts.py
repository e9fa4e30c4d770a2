"""The files keras-skim writes and reads, in one place (no TensorFlow).

Two folders travel between the rooms of the library and the Android app:

* the **model folder** that `keras-skim train` writes: `model.keras` (or a
  `model.h5` a user brings), `tokenizer.json`, `train_config.json`;
* the **export folder** that `keras-skim export` writes: `model.tflite`,
  `tokenizer.json`, `metadata.json`.

Every reader and writer of these files goes through this module: the file
names, the keys of `train_config.json`, the format version, the custom op
names and the token-id semantics are defined here and nowhere else;
`metadata.json` is one typed record, `ExportMetadata`, whose fields are its
keys, and whose module (`keras_skim.metadata_record`, re-exported here)
names the one TFLite signature's inputs and outputs.

How an output folder is written and replaced (staging, the marker's list
of files, `--force`) is `keras_skim.output_folder`; this module only names
the marker file and the error.
"""

import dataclasses
import json
import math
import os

from keras_skim import contract_fields

# The custom op names, the `read_mask` codes and the skim gate's read decision
# (`THRESHOLD_RULE`) are facts of the model kinds (`keras_skim.model_kinds`);
# the export folder's contract names them too.
from keras_skim.model_kinds import (  # noqa: F401
    CUSTOM_OPS,
    THRESHOLD_RULE,
    TOKEN_CODES,
    TOKEN_JUMPED,
    TOKEN_NOT_A_WORD,
    TOKEN_READ,
    TOKEN_SKIMMED,
)

# ---------------------------------------------------------------- file names
MODEL_FILES = ("model.keras", "model.h5")
MODEL_FILE = MODEL_FILES[0]
TOKENIZER_FILE = "tokenizer.json"
TRAIN_CONFIG_FILE = "train_config.json"
TFLITE_FILE = "model.tflite"
METADATA_FILE = "metadata.json"
MARKER_FILE = ".keras-skim-output.json"

# ------------------------------------------------------- the exported model
# `metadata.json` is one typed record (`keras_skim.metadata_record`), whose
# module also names the one signature's inputs and outputs.
from keras_skim.metadata_record import FORMAT as METADATA_FORMAT  # noqa: E402
from keras_skim.metadata_record import (  # noqa: E402, F401
    INPUT_KIND_SEQUENCE,
    INPUT_KIND_TOKEN_IDS,
    INPUT_SEQUENCE,
    INPUT_THRESHOLD,
    INPUT_TOKEN_IDS,
    OUTPUT_LOGITS,
    OUTPUT_READ_COUNT,
    OUTPUT_READ_MASK,
    OUTPUT_VISITED_COUNT,
    SIGNATURE_KEY,
    ExportMetadata,
    FlopCounts,
    TensorInfo,
)
from keras_skim.metadata_record import READABLE_VERSIONS as METADATA_READABLE_VERSIONS  # noqa: E402
from keras_skim.metadata_record import VERSION as METADATA_VERSION  # noqa: E402

# Token ids: the tokenizer never emits 0; a 0 in the input is padding, which
# every path (Keras with mask_zero, both export backends, the runtime) skips:
# the state is kept, the token is neither read nor skimmed (mask 0), and it is
# not counted.
PADDING_ID = 0
UNKNOWN_ID = 1
PADDING_RULE = "id 0 is padding: the step is skipped (state kept, read_mask 0, not counted as a token)"


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
    """The reference of the read rule (`THRESHOLD_RULE`): the cut of a
    threshold t on the gate l_read - l_skim, read a token iff gate >= cut.

    The cut is -inf at t <= 0 (every token read), +inf at t >= 1 (every
    token skimmed, even a gate whose float32 sigmoid rounds to 1), and
    logit(t) = log(t) - log(1 - t) in between (in float64, of t as the
    float32 that the Keras cell and the export's `threshold` input hold). A
    gate equal to the cut reads: at t = 0.5 the cut is 0, so equal
    probabilities read.

    The implementations, which must exist for their runtimes, compute the
    same cut in float32 and are held against this one by the tests
    (tests/export/test_threshold_rule.py): the Keras cell (its
    `_threshold_cut`, asked through the table's skim gate), the TF graph
    (`keras_skim.export.graph_builder.threshold_cut`) and the C++ op
    (`threshold_cut` in the kernels of litert_ops/kernels/). Their float32
    logs round differently (NumPy's, glibc's `logf` and TensorFlow's differ
    by an ulp at about one threshold in five), so a gate within a few
    float32 ulps of logit(t) may be decided either way; the ends and t =
    0.5 are exact in all of them.

    Raises:
        ContractError: a NaN threshold (the implementations would compare
            against a NaN cut and skim every token; the runtime refuses it,
            `check_threshold`).
    """
    import numpy as np

    with np.errstate(over="ignore"):  # what every implementation takes: 0.9999999 is 0.99999988
        threshold = float(np.float32(threshold))
    if math.isnan(threshold):
        raise ContractError("threshold must be a number, not NaN")
    if threshold <= 0.0:
        return -math.inf
    if threshold >= 1.0:
        return math.inf
    return math.log(threshold) - math.log1p(-threshold)


def read_decisions(gates, threshold):
    """The reference read decisions (`threshold_cut`): a bool array, True
    where the gate l_read - l_skim, as the float32 the implementations
    compare, is >= the cut of `threshold` (compared in float64: NumPy would
    round a Python float cut to float32 against a float32 array)."""
    import numpy as np

    return np.asarray(gates, np.float32).astype(np.float64) >= threshold_cut(threshold)


# -------------------------------------------------------------- JSON helpers
def read_json(path, what, max_bytes=None):
    """Parses a JSON object file; ContractError (one line) otherwise. The
    file is read with a size limit (`max_bytes`, or `contract_fields`'
    default) and parsed with a nesting limit (`keras_skim.contract_fields`)."""
    try:
        data = (
            contract_fields.read_limited(path) if max_bytes is None else contract_fields.read_limited(path, max_bytes)
        )
    except FileNotFoundError:
        raise ContractError(f"{path}: no such file (expected {what})") from None
    except IsADirectoryError:
        raise ContractError(f"{path}: is a folder (expected {what})") from None
    except OSError as err:
        raise ContractError(f"{path}: cannot read ({err.strerror}; expected {what})") from None
    except ValueError as err:
        raise ContractError(f"{path}: {err} (expected {what})") from None
    try:
        value = contract_fields.parse_json(data)
    except ValueError as err:
        raise ContractError(f"{path}: not valid JSON ({err}; expected {what})") from None
    if not isinstance(value, dict):
        raise ContractError(f"{path}: expected {what} (a JSON object), got {type(value).__name__}")
    return value


def _checked(check, path, record):
    """Runs a `contract_fields` check; its FieldError as a ContractError."""
    try:
        return check(path, record)
    except contract_fields.FieldError as err:
        raise ContractError(str(err)) from None


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
        raise ContractError(
            f"{path}: {_not_a_file(candidate, 'no such tokenizer')} (expected a {TOKENIZER_FILE} file or a folder "
            "holding one)"
        )
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
    if not isinstance(record.get("arguments"), dict):
        raise ContractError(
            f'{path}: no "arguments" object (expected a {TRAIN_CONFIG_FILE} written by keras-skim train)'
        )
    _checked(contract_fields.check_train_config, path, record)
    arguments = record["arguments"]
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


def _not_a_file(path, missing):
    """Why `path` is not a regular file: `missing`, or what it is instead
    (a FIFO or /dev/zero is not "no such file")."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return missing
    return f"is {contract_fields.file_kind(mode)}, not a regular file"


def resolve_export(path):
    """An export folder or its `model.tflite` -> `ExportFolder`."""
    path = os.path.abspath(os.fspath(path))
    if os.path.isdir(path):
        folder, model = path, os.path.join(path, TFLITE_FILE)
    else:
        folder, model = os.path.dirname(path), path
    if not os.path.isfile(model):
        raise ContractError(f"{model}: {_not_a_file(model, 'no such file')} (expected an exported {TFLITE_FILE})")
    tokenizer = os.path.join(folder, TOKENIZER_FILE)
    return ExportFolder(
        folder, model, os.path.join(folder, METADATA_FILE), tokenizer if os.path.isfile(tokenizer) else None
    )


def read_metadata(path):
    """Reads and checks an export's `metadata.json` -> `ExportMetadata`."""
    what = f"{METADATA_FORMAT} metadata written by keras-skim export"
    metadata = read_json(path, what)
    if metadata.get("format") != METADATA_FORMAT:
        raise ContractError(f"{path}: not {what} (format {metadata.get('format')!r})")
    version = metadata.get("version")
    if isinstance(version, bool) or version not in METADATA_READABLE_VERSIONS:
        raise ContractError(
            f"{path}: metadata version {version!r} is not supported (expected {METADATA_VERSION}); "
            "export the model again"
        )
    return _checked(lambda where, record: ExportMetadata.from_json(record, where), path, metadata)


def signature_inputs(takes, token_ids, threshold):
    """The keyword inputs of one run of an export's signature: `token_ids`,
    and `threshold` only if the signature takes one (`takes`: its input
    names). A model kind the threshold does not apply to has no such input."""
    inputs = {INPUT_TOKEN_IDS: token_ids}
    if INPUT_THRESHOLD in takes:
        inputs[INPUT_THRESHOLD] = threshold
    return inputs


# ---------------------------------------------------------- single-file outputs
HTML_MARKER = "<!-- written by keras-skim show -->"
