"""An export's `metadata.json` as one typed record: each key is spelled
once, here, as a dataclass field (no TensorFlow, no Keras).

`ExportMetadata.to_json()` is what `keras-skim export` writes;
`ExportMetadata.from_json(record, path)` is what the runtime, `bench`, the
release pipeline and the tests read, checked field by field with the
checkers of `keras_skim.contract_fields` (each field's checker sits in its
`dataclasses.field` metadata). The Android app reads the same keys in Java
(`ModelMetadata.java`); the golden files of `android_demo/golden/` hold
what this record reads from each bundled export, and the JVM tests check
the app reads the same.

    record = ExportMetadata.from_json(json.load(f), "metadata.json")
    record.class_name(1), record.takes_threshold, record.flops.baseline_flops_per_token
"""

import dataclasses

from keras_skim import contract_fields as cf
from keras_skim.model_kinds import KINDS, TOKEN_CODES, kind_of

FORMAT = "keras_skim.export"
# The one signature of every export (every backend, every model kind):
#   token_ids int32 [1, T]; threshold float32 [] only where it applies
#   (`ModelKind.threshold_applies`: the skim kinds);
#   -> logits float32 [1, k] (before the activation), read_mask int32 [1, T]
#   (per token a `model_kinds.TOKEN_*` code), read_count int32 [1], and for a
#   jump kind visited_count int32 [1].
SIGNATURE_KEY = "serving_default"
INPUT_TOKEN_IDS = "token_ids"
# A model on float sequences (`Input((T, F))` straight into its recurrent
# layer: pixel MNIST, the adding task) takes `sequence` float32 [1, T, F]
# instead of `token_ids`; its `input_kind` is INPUT_KIND_SEQUENCE.
INPUT_SEQUENCE = "sequence"
INPUT_KIND_TOKEN_IDS = "token_ids"
INPUT_KIND_SEQUENCE = "sequence"
INPUT_KINDS = (INPUT_KIND_TOKEN_IDS, INPUT_KIND_SEQUENCE)
INPUT_THRESHOLD = "threshold"
OUTPUT_LOGITS = "logits"
OUTPUT_READ_MASK = "read_mask"
OUTPUT_READ_COUNT = "read_count"
OUTPUT_VISITED_COUNT = "visited_count"  # jump models: words not jumped over
DIRECTIONS = ("forward", "backward")


def read_mask_name(layer, direction="forward"):
    """The output holding the read mask of recurrent layer `layer` (0 = the
    one on the embedding) in `direction` ("forward" or "backward", a
    Bidirectional layer's): `read_mask` for layer 0's forward direction (the
    only one of a single-layer export), else `read_mask_layer{layer}_{direction}`
    (int32 [1, T], in token order, the same codes)."""
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}; got {direction!r}")
    if layer == 0 and direction == "forward":
        return OUTPUT_READ_MASK
    return f"{OUTPUT_READ_MASK}_layer{int(layer)}_{direction}"


# 3: `threshold` is an input only where it applies (skim kinds), `read_mask`
#    is int32 in every backend, `class_names`, `outputs.read_mask.codes`.
# 2: `padding_id` and `threshold_rule` recorded; id 0 skipped by every backend.
VERSION = 3
READABLE_VERSIONS = (1, 2, 3)


def _field(check=None, required=False, default=None, omit_none=False):
    """A record field: its checker (`contract_fields`), whether a file
    must have it, and whether `to_json` leaves it out when None."""
    return dataclasses.field(default=default, metadata={"check": check, "required": required, "omit_none": omit_none})


def _checks(cls):
    """{key: (checker, required)} of a record class: `contract_fields.check_fields`' table."""
    return {f.name: (f.metadata["check"], f.metadata["required"]) for f in dataclasses.fields(cls) if f.metadata}


def _to_json(record):
    out = {}
    for f in dataclasses.fields(record):
        value = getattr(record, f.name)
        if not f.metadata or (value is None and f.metadata["omit_none"]):
            continue
        out[f.name] = value.to_json() if hasattr(value, "to_json") else value
    return out


def _known(cls, record):
    """The entries of `record` that are fields of `cls`."""
    names = {f.name for f in dataclasses.fields(cls) if f.metadata}
    return {k: v for k, v in record.items() if k in names}


@dataclasses.dataclass
class TensorInfo:
    """One input or output of the export's signature, as `metadata.json` describes it."""

    shape: list = _field(cf.list_of(cf.integer(-1, cf.MAX_SEQUENCE_LENGTH), nullable=True))
    dtype: str = _field(cf.text(nullable=True))
    note: str = _field(cf.text(nullable=True), omit_none=True)
    default: float = _field(cf.number(nullable=True), omit_none=True)  # `threshold`: the exported default
    activation: str = _field(cf.text(nullable=True), omit_none=True)  # `logits`: the Dense activation
    codes: dict = _field(cf.mapping(nullable=True), omit_none=True)  # `read_mask`: {"1": "read", ...}

    def to_json(self):
        return _to_json(self)

    @classmethod
    def from_json(cls, value, path, where):
        if not isinstance(value, dict):
            raise cf.FieldError(f"{path}: {where} must be an object")
        cf.check_fields(path, value, _checks(cls), prefix=f"{where}.")
        return cls(**_known(cls, value))


@dataclasses.dataclass
class FlopCounts:
    """FLOPs per token (`keras_skim.analysis`); a jump model's per piece."""

    kind: str = _field(cf.text(nullable=True))
    baseline_flops_per_token: float = _field(cf.number(nullable=True))
    read_flops_per_token: float = _field(cf.number(nullable=True))
    skim_flops_per_token: float = _field(cf.number(nullable=True))
    at_skim_rate_0: dict = _field(cf.mapping(nullable=True), omit_none=True)
    at_skim_rate_1: dict = _field(cf.mapping(nullable=True), omit_none=True)
    skip_agent_flops: float = _field(cf.number(nullable=True), omit_none=True)
    lstm_flops: float = _field(cf.number(nullable=True), omit_none=True)
    jump_agent_flops: float = _field(cf.number(nullable=True), omit_none=True)
    read_step_flops: float = _field(cf.number(nullable=True), omit_none=True)
    flop_r_rule: str = _field(cf.text(nullable=True), omit_none=True)

    def to_json(self):
        return _to_json(self)

    @classmethod
    def from_json(cls, value, path):
        cf.check_fields(path, value, _checks(cls), prefix='"flops".')
        return cls(**_known(cls, value))


def _tensors(value, path, where):
    """{name: TensorInfo} of `inputs` / `outputs`."""
    return {name: TensorInfo.from_json(info, path, f'"{where}"."{name}"') for name, info in value.items()}


@dataclasses.dataclass
class ExportMetadata:
    """What `keras-skim export` records about an exported model. Fields in
    the order the file holds them; `extra` keeps keys this version does not
    know (a newer writer's), written back as they were."""

    format: str = _field(cf.text(), default=FORMAT)
    version: int = _field(cf.integer(1, 1 << 16), default=VERSION)
    model_kind: str = _field(cf.text(choices=tuple(KINDS)), required=True)
    units: int = _field(cf.integer(1, cf.MAX_UNITS, nullable=True))
    small_units: int = _field(cf.integer(0, cf.MAX_UNITS, nullable=True))
    embedding_dim: int = _field(cf.integer(1, cf.MAX_UNITS, nullable=True))
    # Token-id exports only (checked in from_json); a sequence export has none.
    vocabulary_size: int = _field(cf.integer(2, cf.MAX_VOCABULARY_SIZE, nullable=True))
    num_classes: int = _field(cf.integer(1, cf.MAX_CLASSES), required=True)
    # The training data's class names (train_config.json's `data.classes`),
    # max(num_classes, 2) of them; null when the model folder had none.
    class_names: list = _field(cf.list_of(cf.text(), nullable=True, max_items=cf.MAX_CLASSES))
    output_activation: str = _field(cf.text(nullable=True))
    max_length: int = _field(cf.integer(1, cf.MAX_SEQUENCE_LENGTH, nullable=True))
    default_threshold: float = _field(cf.number(nullable=True))
    # What the signature takes: INPUT_KIND_TOKEN_IDS (absent in exports
    # written before sequence inputs) or INPUT_KIND_SEQUENCE, with the
    # sequence's features per step (F of [1, T, F]).
    input_kind: str = _field(cf.text(choices=INPUT_KINDS, nullable=True), omit_none=True)
    feature_dim: int = _field(cf.integer(1, cf.MAX_UNITS, nullable=True), omit_none=True)
    padding_id: int = _field(cf.integer(0, 0, nullable=True))
    threshold_rule: str = _field(cf.text(nullable=True))
    signature: str = _field(cf.text(), default=SIGNATURE_KEY)
    inputs: dict = _field(cf.mapping(), default=None)
    outputs: dict = _field(cf.mapping(), default=None)
    flops: FlopCounts = _field(cf.mapping(nullable=True))
    keras_weights_bytes: int = _field(cf.integer(0, 1 << 62, nullable=True))
    tflite_bytes: int = _field(cf.integer(0, 1 << 62, nullable=True))
    source_model: str = _field(cf.text(nullable=True))
    tokenizer: str = _field(cf.text(nullable=True))
    parity: dict = _field(cf.mapping(nullable=True))
    tflite_ops: list = _field(cf.list_of(cf.text(), nullable=True))
    backend: str = _field(cf.text(choices=("builtin", "custom")), default="builtin")
    custom_ops: list = _field(cf.list_of(cf.text()), default=None)
    quantize: str = _field(cf.text(nullable=True))
    runtime_note: str = _field(cf.text(nullable=True), omit_none=True)
    # Kinds that jump only (`ModelKind.jumps`).
    agent_units: int = _field(cf.integer(1, cf.MAX_UNITS, nullable=True), omit_none=True)
    speed_reading: bool = _field(cf.boolean, omit_none=True)
    punctuation: dict = _field(cf.mapping(), omit_none=True)
    token_codes: dict = _field(cf.mapping(), omit_none=True)
    # Stacked or bidirectional exports only: one entry per recurrent layer,
    # input first: {"name", "model_kind", "units", "small_units", "input_dim",
    # "directions": ["forward"(, "backward")], "return_sequences", "merge_mode",
    # "read_masks": {direction: output name} (`read_mask_name`), "flops": {...}}.
    # Absent from a single-layer export (its one mask is `read_mask`); readers
    # of older versions keep it in `extra`.
    layers: list = _field(cf.list_of(cf.mapping(), max_items=64), omit_none=True)
    # Question-answering exports only (`model_kinds.TASKS`): {"name": the task, ...its own settings}, by
    # which the runtime answers (`SkimRunner.answer`); absent from a text classifier's export.
    task: dict = _field(cf.mapping(nullable=True), omit_none=True)
    extra: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        self.inputs = {} if self.inputs is None else self.inputs
        self.outputs = {} if self.outputs is None else self.outputs
        self.custom_ops = [] if self.custom_ops is None else self.custom_ops

    # ------------------------------------------------------------ JSON
    def to_json(self):
        """The JSON object of `metadata.json`."""
        out = _to_json(self)
        out["inputs"] = {name: info.to_json() for name, info in self.inputs.items()}
        out["outputs"] = {name: info.to_json() for name, info in self.outputs.items()}
        out.update(self.extra)
        return out

    @classmethod
    def of(cls, record):
        """A record of the known keys of a metadata dict, unchecked (a dict a
        caller made by hand; files go through `from_json`)."""
        known = {k: v for k, v in _known(cls, record).items() if k not in ("inputs", "outputs")}
        if isinstance(known.get("flops"), dict):
            known["flops"] = FlopCounts(**_known(FlopCounts, known["flops"]))
        return cls(**known)

    @classmethod
    def from_json(cls, record, path="metadata.json"):
        """The record of a parsed `metadata.json`; `contract_fields.FieldError`
        (one line naming `path` and the key) for a field of the wrong type or
        range. Format and version are the caller's check (`contracts.read_metadata`)."""
        cf.check_fields(path, record, _checks(cls))
        known = _known(cls, record)
        known["inputs"] = _tensors(record.get("inputs") or {}, path, "inputs")
        known["outputs"] = _tensors(record.get("outputs") or {}, path, "outputs")
        if record.get("flops") is not None:
            known["flops"] = FlopCounts.from_json(record["flops"], path)
        known["extra"] = {k: v for k, v in record.items() if k not in known}
        metadata = cls(**known)
        if metadata.takes_sequence:
            if metadata.feature_dim is None:
                raise cf.FieldError(f'{path}: "feature_dim" must be an integer for a sequence input')
        elif metadata.vocabulary_size is None:
            raise cf.FieldError(f'{path}: "vocabulary_size" must be an integer (the export takes token ids)')
        if metadata.kind.jumps:  # its Flop-r is counted from these sizes
            for key in ("units", "embedding_dim"):
                if getattr(metadata, key) is None:
                    raise cf.FieldError(f'{path}: "{key}" must be an integer for a {metadata.model_kind}')
        return metadata

    # ------------------------------------------------------- what it means
    @property
    def kind(self):
        """The `keras_skim.model_kinds.ModelKind` of the export."""
        return kind_of(self.model_kind)

    @property
    def takes_sequence(self):
        """Whether the signature takes a float `sequence` [1, T, F] rather than `token_ids`."""
        return self.input_kind == INPUT_KIND_SEQUENCE

    @property
    def takes_threshold(self):
        """Whether the signature has a `threshold` input: written since
        version 3 only where it applies; older exports always had one."""
        if self.inputs:
            return INPUT_THRESHOLD in self.inputs
        return self.version < VERSION or self.kind.threshold_applies

    @property
    def read_masks(self):
        """{output name: (layer index, direction)} of every read mask the
        signature gives: `read_mask` alone for a single-layer export."""
        if not self.layers:
            return {OUTPUT_READ_MASK: (0, "forward")}
        return {
            name: (index, direction)
            for index, layer in enumerate(self.layers)
            for direction, name in (layer.get("read_masks") or {}).items()
        }

    @property
    def classes(self):
        """The number of class names the logits give (a single sigmoid logit gives two)."""
        return max(self.num_classes, 2)

    def class_name(self, index):
        """The name of class `index`: the training data's, else "class i"
        (exports written before class names travelled)."""
        names = self.class_names or []
        return names[index] if len(names) == self.classes and 0 <= index < len(names) else f"class {index}"

    # ------------------------------------------- the dict it used to be
    def __getitem__(self, key):
        """`metadata["units"]`: the JSON value of a key, for code written
        when `SkimRunner.metadata` was a dict (prefer the fields)."""
        return self.to_json()[key]

    def get(self, key, default=None):
        return self.to_json().get(key, default)


def mask_codes(kind):
    """`outputs.read_mask.codes` of a model kind: {"code": name} of the
    codes its `read_mask` holds, from the one table (`model_kinds.TOKEN_CODES`)."""
    return {str(code): TOKEN_CODES[code] for code in sorted(kind_of(kind).mask_codes)}
