"""The text classifier family's pieces of `keras-skim train` (skim cells and
baselines: embedding, one recurrent layer, logits).

`keras_skim.model_kinds.FAMILIES` names this module; `train_command` adds
its options and runs `train` for the kinds of the family. Its evaluate and
show reports are the commands' own (no `evaluate`/`show` here); `evaluate`
asks it for its numbers (`evaluation`).
"""

import sys

from keras_skim.cli.model_args import THRESHOLD_HELP, dropout_rate, non_negative_float, non_negative_int, positive_int
from keras_skim.model_kinds import CLI_KINDS

# The `--cell` values whose options these are (the kinds with a skim gate).
GATED_CELLS = ", ".join(cell for cell, kind in CLI_KINDS.items() if kind.skims)

# Defaults of the options only this family has (None in argparse, so that an
# option given for another family's kind can be told from its default).
SKIM_DEFAULTS = {"small_units": 10, "gamma": 0.01, "threshold": 0.5}
TEXT_DEFAULTS = {"epochs": 5, "patience_steps": None, "dropout": 0.0}
OPTION_GROUPS = {"skim": SKIM_DEFAULTS, "text": TEXT_DEFAULTS}
# What the shared options' help says of this family.
HELP_NOTES = {
    "resume": "skim cells and baselines: checkpointed at every epoch's end when --resume or --run-name is given, "
    "the early-stopping state with it, so that a resumed run ends as the run never stopped would",
}


def add_arguments(parser):
    """The skim cells' options (`--epochs` is a shared option)."""
    skim = parser.add_argument_group(f"skim cells ({GATED_CELLS})")
    skim.add_argument(
        "--small-units",
        type=non_negative_int,
        default=None,
        help=f"d' (default {SKIM_DEFAULTS['small_units']}; 0 = skip)",
    )
    skim.add_argument(
        "--gamma", type=non_negative_float, default=None, help=f"skim-loss weight (default {SKIM_DEFAULTS['gamma']})"
    )
    skim.add_argument(
        "--threshold",
        type=non_negative_float,
        default=None,
        help=THRESHOLD_HELP + f" (default {SKIM_DEFAULTS['threshold']})",
    )
    parser.add_argument(
        "--patience-steps",
        type=positive_int,
        default=None,
        metavar="N",
        help="skim cells and baselines: stop when validation accuracy (checked at each epoch's end) has not "
        "improved for N training steps, and keep the best epoch (Seo et al., ICLR 2018: 3,000; default: "
        "patience 2 epochs)",
    )
    parser.add_argument(
        "--dropout",
        type=dropout_rate,
        default=None,
        metavar="RATE",
        help="skim cells and baselines: dropout on the recurrent layer's output, in training (default 0: none)",
    )


def refusal(group):
    """Why another family's option group does not apply here (None: the generic "only to ...")."""
    return None


def check(args, kind, units):
    """One-line refusals of option values that do not fit together."""
    from keras_skim.cli.errors import CliError

    if args.patience_steps is not None and not args.early_stopping:
        raise CliError("--patience-steps and --no-early-stopping exclude each other")
    if kind.skims and args.small_units >= units:
        raise CliError(f"--small-units ({args.small_units}) must be smaller than --units ({units})")


def training_config(args, units, learning_rate, batch_size):
    """The `TextClassifierTrainingConfig` of `keras-skim train`'s options."""
    from keras_skim.models.text_classifier.text_classifier_config import TextClassifierTrainingConfig

    return TextClassifierTrainingConfig(
        cell=args.cell,
        units=units,
        small_units=args.small_units,
        gamma=args.gamma,
        threshold=args.threshold,
        epochs=args.epochs,
        batch_size=batch_size,
        learning_rate=learning_rate,
        max_length=args.max_length,
        max_tokens=args.max_tokens,
        glove=args.glove,
        limit=args.limit,
        seed=args.seed,
        split_seed=args.split_seed or 0,
        train_embedding=not args.freeze_embedding,
        early_stopping=args.early_stopping,
        patience_steps=args.patience_steps,
        dropout=args.dropout,
    )


def train(args, kind, units, learning_rate, batch_size):
    """Trains and writes the model folder; prints its one-line summary (130
    and how to resume when a checkpointed run is interrupted)."""
    from keras_skim.cli.errors import CliError
    from keras_skim.models.text_classifier.text_classifier_training import train_text_classifier
    from keras_skim.training.run_checkpoint import CheckpointError

    config = training_config(args, units, learning_rate, batch_size)
    verbose = 0 if args.quiet else 1
    run = _run_options(args)
    try:
        results = train_text_classifier(args.data, config, args.output, force=args.force, verbose=verbose, **run)
    except CheckpointError as err:
        raise CliError(str(err)) from None
    except KeyboardInterrupt:
        if not run:
            raise
        print(
            f"interrupted; the checkpoint of the last finished epoch is in {run['run_dir']}: "
            "run the same command with --resume to continue",
            file=sys.stderr,
        )
        return 130
    test = results["test"]
    print(
        f"wrote {args.output}: test accuracy {test['accuracy']:.4f}, "
        f"skim rate {test['skim_rate']:.3f}, Flop-R {test['flop_r']:.2f}x, "
        f"{results['seconds_per_epoch']:.1f} s/epoch"
    )
    return 0


def _run_options(args):
    """The checkpoint's options when the run is checkpointed (`--resume` or
    `--run-name`; the folder defaults to one named after the output
    folder), else none."""
    import os

    from keras_skim.cli.run_args import run_options
    from keras_skim.training.run_checkpoint import default_run_name, runs_root

    if not (args.resume or args.run_name):
        return {}
    return run_options(args, run_dir=os.path.join(runs_root(), default_run_name(args.output)))


def evaluation(model, ids, labels, threshold):
    """`keras-skim evaluate`'s numbers for a text classifier on encoded
    texts: accuracy, skim rate and Flop-R at `threshold` (None: the
    model's); a stacked or bidirectional model's skim rate per layer and
    direction too, and Flop-R over all of them, in one compiled pass."""
    import numpy as np

    from keras_skim.model_kinds import skim_gate
    from keras_skim.models.text_classifier.text_classifier_training import (
        evaluate_model,
        flop_summary,
        predicted_classes,
    )

    gate = skim_gate()
    if not (gate.is_stack(model) and gate.skim_directions(model)):
        result = evaluate_model(model, ids, labels, threshold=threshold)
        result["flop_r"] = flop_summary(model, result["skim_rate"])["flop_r"]
        return result
    logits, stats = gate.skim_predictions(model, ids, threshold=threshold)
    truth = np.rint(np.asarray(labels, np.float64)).astype(np.int32)
    layers = gate.layer_rows(model, stats)
    return {
        "accuracy": float(np.mean(predicted_classes(logits) == truth)) if len(truth) else 0.0,
        "skim_rate": stats["skim_rate"],
        "threshold": gate.gated_cells(model)[0].threshold if threshold is None else threshold,
        "layers": layers,
        "flop_r": gate.stack_flop_r(model, [row["skim_rate"] for row in layers]),
    }
