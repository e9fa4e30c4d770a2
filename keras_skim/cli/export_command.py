"""`keras-skim export MODEL [-o OUTDIR]`: TFLite model, tokenizer and metadata."""

import argparse
import os

from keras_skim.cli.model_args import (
    MAX_PARITY_SAMPLES,
    THRESHOLD_HELP,
    non_negative_float,
    output_path,
    parity_samples,
)
from keras_skim.model_kinds import CUSTOM_OPS, KINDS


def add_arguments(parser):
    parser.add_argument(
        "model",
        metavar="MODEL",
        help="trained model: a model folder from `keras-skim train`, .keras/.h5, or a preset (keras-skim presets)",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=output_path,
        metavar="OUTDIR",
        help="output folder (default: <model name>_tflite next to the model; for a preset, in this folder)",
    )
    parser.add_argument(
        "--force", action="store_true", help="replace OUTDIR if keras-skim wrote it (never a folder with other files)"
    )
    parser.add_argument("--tokenizer", metavar="PATH", help="tokenizer.json (default: next to MODEL)")
    parser.add_argument(
        "--threshold",
        type=non_negative_float,
        metavar="T",
        help="default threshold recorded in metadata (default: the trained one); " + THRESHOLD_HELP,
    )
    parser.add_argument(
        "--parity-samples",
        type=parity_samples,
        default=4,
        metavar="N",
        help=f"inputs checked against Keras at several thresholds (default 4, at most {MAX_PARITY_SAMPLES})",
    )
    parser.add_argument(
        "--quantize",
        choices=["int8"],
        default=None,
        help="int8: dynamic-range int8 weights, a smaller file (sizes in "
        "benchmarks/results/trained_export_speed.md); parity is "
        "checked exactly against the dequantized weights (custom) or as >= 99%% "
        "of read decisions kept (builtin)",
    )
    parser.add_argument(
        "--fold",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="fold the embedding into per-word input rows (x W + b), so a read token skips the input "
        "product: faster with wide embeddings (300-d: benchmarks/results/custom_op_speed_strict_d100_d256.md), "
        "a larger file with a large vocabulary; default: fold only where the file does not grow",
    )
    parser.add_argument(
        "--backend",
        choices=["auto", "custom", "builtin"],
        default="auto",
        help="auto (default): custom where the model has a custom op ("
        + ", ".join(kind.title for kind in KINDS.values() if kind.custom_op)
        + ") and this install has the op library, else builtin; it says "
        "in one line which it wrote and what the other costs. custom: the whole recurrence as "
        "one op (" + ", ".join(CUSTOM_OPS.values()) + "), faster than the LSTM export at "
        "every size and skim rate measured; it runs in keras-skim's runtime and in apps that "
        "register the op (android_demo does); Embedding -> RNN(cell) -> [Dropout] -> Dense "
        "models. builtin: builtin TFLite ops only, runs in any LiteRT interpreter, but slower "
        "than custom, and at small d slower than the LSTM export even when skimming most "
        "tokens (benchmarks/results/custom_op_speed.md)",
    )


def _model_and_output(model, output):
    """(local model path, output folder): a preset (name or handle) is read
    where it is installed or downloaded, and exported into the working
    folder unless -o says where (never next to an installed preset)."""
    from keras_skim.cli.errors import CliError
    from keras_skim.presets import PresetError, local_preset_path

    try:
        path = local_preset_path(model)
    except PresetError as err:
        raise CliError(str(err)) from None
    if path != model and output is None:
        output = os.path.basename(model.rstrip("/")) + "_tflite"
    return path, output


def run(args):
    from keras_skim.cli.errors import CliError
    from keras_skim.export.errors import ExportError
    from keras_skim.export.export_options import ExportOptions
    from keras_skim.export.exporter import export_model

    model_path, output = _model_and_output(args.model, args.output)
    try:
        options = ExportOptions(
            force=args.force,
            tokenizer_path=args.tokenizer,
            threshold=args.threshold,
            parity_samples=args.parity_samples,
            backend=args.backend,
            quantize=args.quantize,
            fold=args.fold,
        )
        result = export_model(model_path, output, options)
    except ExportError as err:
        raise CliError(str(err)) from None
    meta = result.metadata
    for note in result.notes:
        print(f"note: {note}")
    print(
        f"exported {meta.model_kind} (d={meta.units}, d'={meta.small_units}) "
        f"to {result.output_dir} (backend: {meta.backend})"
    )
    for name in result.files:
        size = os.path.getsize(os.path.join(result.output_dir, name))
        print(f"  {name}  {size} bytes")
    print(f"  Keras weights {meta.keras_weights_bytes} bytes, TFLite {meta.tflite_bytes} bytes")
    print(result.parity.message)
    return 0
