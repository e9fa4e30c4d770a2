"""`keras-skim export MODEL [-o OUTDIR]`: TFLite model, tokenizer and metadata."""

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
        "model", metavar="MODEL", help="trained model: a model folder from `keras-skim train`, or .keras/.h5"
    )
    parser.add_argument(
        "-o",
        "--output",
        type=output_path,
        metavar="OUTDIR",
        help="output folder (default: <model name>_tflite next to the model)",
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
        help="int8: dynamic-range int8 weights (about 0.27x the float file); parity is "
        "checked exactly against the dequantized weights (custom) or as >= 99%% "
        "of read decisions kept (builtin)",
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
        "models. builtin: builtin TFLite ops only, runs in any LiteRT interpreter, but at "
        "d=100 slower than the LSTM export even at 80-95%% skim (about 5.7x slower than "
        "custom at 80%%); it pays off from d=256 at 80%% skim or more",
    )


def run(args):
    from keras_skim.cli.errors import CliError
    from keras_skim.export.errors import ExportError
    from keras_skim.export.exporter import export_model

    try:
        result = export_model(
            args.model,
            args.output,
            force=args.force,
            tokenizer_path=args.tokenizer,
            threshold=args.threshold,
            parity_samples=args.parity_samples,
            backend=args.backend,
            quantize=args.quantize,
        )
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
