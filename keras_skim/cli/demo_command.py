"""`keras-skim demo`: the README's main job.

Trains a Skim-LSTM and an LSTM baseline of the same size on Rotten
Tomatoes and prints the comparison: accuracy, skim rate, Flop-R and
training time.
"""
import json
import os

from keras_skim.cli.errors import CliError
from keras_skim.cli.model_args import non_negative_float, non_negative_int, positive_int


def add_arguments(parser):
    parser.add_argument("-o", "--output", default="keras-skim-demo", help="folder to write")
    parser.add_argument("--force", action="store_true", help="overwrite the output folder")
    parser.add_argument("--data", choices=["rotten_tomatoes", "imdb"], default="rotten_tomatoes")
    parser.add_argument("--epochs", type=positive_int, default=3)
    parser.add_argument("--units", type=positive_int, default=100)
    parser.add_argument("--small-units", type=non_negative_int, default=10)
    parser.add_argument("--gamma", type=non_negative_float, default=0.02)
    parser.add_argument("--limit", type=positive_int, default=None,
                        help="train on a subset of this size (quick look)")
    parser.add_argument("--quiet", action="store_true")


def comparison_table(rows):
    lines = [
        "| model | accuracy | skim rate | Flop-R | s/epoch |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, result in rows:
        test = result["test"]
        lines.append(
            f"| {name} | {test['accuracy']:.4f} | {test['skim_rate']:.3f} | "
            f"{test['flop_r']:.2f}x | {result['seconds_per_epoch']:.1f} |"
        )
    return "\n".join(lines)


def run(args):
    if os.path.exists(args.output) and not args.force:
        raise CliError(f"{args.output} already exists (use --force to overwrite it)")
    if args.small_units >= args.units:
        raise CliError(f"--small-units ({args.small_units}) must be smaller than --units ({args.units})")
    from keras_skim.datasets import DatasetUnavailableError
    from keras_skim.model_io import staged_output_dir
    from keras_skim.training.text_training import train_text_model

    rows = []
    with staged_output_dir(args.output, force=args.force) as stage:
        for name, cell in (("Skim-LSTM", "skim-lstm"), ("LSTM", "lstm")):
            print(f"== training {name} (d={args.units}"
                  + (f", d'={args.small_units}, gamma={args.gamma}" if cell != "lstm" else "")
                  + f") on {args.data}")
            try:
                result = train_text_model(
                    os.path.join(stage, cell.replace("-", "_")),
                    dataset=args.data,
                    cell=cell,
                    units=args.units,
                    small_units=args.small_units,
                    gamma=args.gamma,
                    epochs=args.epochs,
                    limit=args.limit,
                    verbose=0 if args.quiet else 1,
                )
            except DatasetUnavailableError as err:
                raise CliError(str(err)) from None
            rows.append((name, result))
        table = comparison_table(rows)
        with open(os.path.join(stage, "comparison.md"), "w") as f:
            f.write(f"# keras-skim demo on {args.data}\n\n{table}\n")
        with open(os.path.join(stage, "comparison.json"), "w") as f:
            json.dump({name: result["test"] for name, result in rows}, f, indent=2)
    print()
    print(table)
    print(f"\nwrote {args.output}/ (models, tokenizers, comparison.md)")
    return 0
