"""`ExportOptions`: the settings of one export (`exporter.export_model`),
checked once when built, so the CLI and Python callers get the same
one-line `ExportError` for a bad value."""

import dataclasses

from keras_skim import contracts
from keras_skim.export.errors import ExportError

BACKENDS = ("auto", "builtin", "custom")  # auto: `backend_choice.choose_backend`
# Every parity sample is one Keras and one LiteRT run per threshold: the bound
# keeps a typo from running for hours (the CLI's --parity-samples checks it too).
MAX_PARITY_SAMPLES = 1000


@dataclasses.dataclass
class ExportOptions:
    """How to export a model; see `keras-skim export --help`.

    Attributes:
        force: replace an existing export folder (only one keras-skim wrote).
        tokenizer_path: a tokenizer.json (or its folder) to use instead of
            the model's own.
        tokenizer: for a model in memory, a `keras_skim.datasets.Tokenizer`
            or a tokenizer.json (or its folder); without one the export
            takes token ids only.
        threshold: the default read threshold recorded in the metadata
            (None: the trained one); checked by `contracts.check_threshold`.
        parity_samples: inputs of the parity check, 1 to `MAX_PARITY_SAMPLES`.
        fold: fold the embedding into the projection tables (builtin).
        backend: "auto" (the default: "custom" where the model kind has a
            custom op and this install runs it, else "builtin";
            `backend_choice`), "builtin" (builtin TFLite ops only, runs in
            any LiteRT interpreter) or "custom" (one custom op per model
            kind, `model_kinds.CUSTOM_OPS`; interpreters must register
            `keras_skim.litert_ops`).
        quantize: None (float32 weights) or "int8": dynamic-range int8
            weights (builtin: the converter's quantization of the
            FULLY_CONNECTED weights; custom: int8 embedding rows and big-cell
            kernel with per-row / per-column scales; the backends a family
            quantizes are its exporter's `quantizes`). A custom int8 export
            is checked exactly against its own dequantized weights; a
            builtin int8 one, whose kernels quantize activations too, with
            `parity.INT8_AGREEMENT` (>= 99% of read decisions kept, outputs
            within 0.05 of the float model's).
        parity_texts: texts the parity check runs first (encoded with the
            export's tokenizer, up to `parity_samples`); None: the test
            texts of the data the model was trained on when they are at hand
            (`exporter.recorded_test_texts`; a model in memory records none),
            else random token ids only.

    Raises:
        ExportError: one-line reason, for the first bad value.
    """

    force: bool = False
    tokenizer_path: object = None
    tokenizer: object = None
    threshold: object = None
    parity_samples: int = 4
    fold: object = None
    backend: str = "auto"
    quantize: object = None
    parity_texts: object = None

    def __post_init__(self):
        from keras_skim.export.int8_weights import QUANTIZE

        if self.threshold is not None:
            try:
                self.threshold = contracts.check_threshold(self.threshold, "--threshold")
            except contracts.ContractError as err:
                raise ExportError(str(err)) from None
        if self.parity_samples < 1:
            raise ExportError("--parity-samples must be at least 1")
        if self.parity_samples > MAX_PARITY_SAMPLES:
            raise ExportError(f"--parity-samples must be at most {MAX_PARITY_SAMPLES}; got {self.parity_samples}")
        if self.quantize not in QUANTIZE:
            raise ExportError(f"--quantize must be int8 (or left out for float32); got {self.quantize!r}")
        if self.backend not in BACKENDS:
            raise ExportError(f"--backend must be one of {', '.join(BACKENDS)}; got {self.backend!r}")
