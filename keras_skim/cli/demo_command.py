"""`keras-skim demo`: the README's main job.

Trains a skim model and a baseline of the same size (the model-kind
table's `DEMO_KINDS`) on Rotten Tomatoes and prints the comparison:
accuracy, skim rate, Flop-R and training time. Then (unless `--no-export`)
exports both to TFLite as `keras-skim export` does by default (the skim
model with the custom-op backend where the op library was built with the
package, else the builtin one; the baseline with the builtin one) and
benchmarks them with LiteRT on test texts: per-token latency, speed-up,
skim rate and Flop-R.
"""

import json
import os
import shutil

from keras_skim.cli.bench_command import MAX_REPEATS, MAX_SAMPLES
from keras_skim.cli.data_args import add_data_argument, data_error
from keras_skim.cli.errors import CliError
from keras_skim.cli.model_args import (
    MAX_STATE_UNITS,
    integer_in,
    non_negative_float,
    non_negative_int,
    output_path,
    positive_int,
    state_units,
)
from keras_skim.model_kinds import DEMO_KINDS, KINDS, family_of, load

# The skim model the demo trains, and its baseline.
MODEL, BASELINE = (KINDS[name] for name in DEMO_KINDS)


def add_arguments(parser):
    parser.add_argument("-o", "--output", type=output_path, default="keras-skim-demo", help="folder to write")
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace the output folder if keras-skim wrote it (never a folder with other files)",
    )
    add_data_argument(parser, default="rotten_tomatoes")
    parser.add_argument("--epochs", type=positive_int, default=3)
    parser.add_argument(
        "--units", type=state_units, default=100, help=f"state size d (default 100, at most {MAX_STATE_UNITS})"
    )
    parser.add_argument("--small-units", type=non_negative_int, default=10)
    parser.add_argument("--gamma", type=non_negative_float, default=0.02)
    parser.add_argument("--limit", type=positive_int, default=None, help="train on a subset of this size (quick look)")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument(
        "--no-export", action="store_true", help="skip the TFLite exports and the LiteRT latency benchmark"
    )
    parser.add_argument(
        "--bench-samples",
        type=integer_in(1, MAX_SAMPLES),
        default=100,
        metavar="N",
        help="test texts timed by the benchmark (default 100)",
    )
    parser.add_argument(
        "--bench-repeats",
        type=integer_in(1, MAX_REPEATS),
        default=3,
        metavar="R",
        help="timed runs per text (default 3)",
    )


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


def preset_lines(data):
    """What the presets of the demo's two models on `data` reach, from their
    cards (`keras_skim.list_presets()`; a preset named `<kind>_<data>`,
    e.g. `lstm_rotten_tomatoes`), to print beside the demo's own short
    training; where none is installed, a line that says so."""
    from keras_skim.presets import PresetError, list_presets

    try:
        cards = list_presets()
    except PresetError as err:
        return [f"The presets could not be read: {err}"]
    found = [(kind, cards.get(f"{kind.name}_{data}")) for kind in (MODEL, BASELINE)]
    rows = [card for _, card in found if card is not None and card.data == data]
    missing = [kind.title for kind, card in found if card is None or card.data != data]
    lines = []
    if rows:
        lines += [
            f"What the presets of these models on {data} reach (their cards, trained by the commands they name; "
            "`keras-skim presets`):",
            "",
            "| preset | accuracy | skim rate | Flop-R | split (texts) |",
            "|---|---:|---:|---:|---:|",
        ]
        for card in rows:
            skim = "-" if card.skim_rate is None else f"{card.skim_rate:.3f}"
            lines.append(
                f"| {card.name} | {card.test_accuracy:.4f} | {skim} | {card.flop_r:.2f}x | "
                f"{card.split} ({card.test_examples}) |"
            )
    if missing:
        lines += [""] if rows else []
        lines.append(
            f"No preset of {' or '.join(missing)} on {data} is installed (`keras-skim presets` lists those that are)."
        )
    return lines


def latency_table(report):
    """Markdown table of a `run_bench` report (model vs the LSTM baseline)."""
    r = report["results"][0]
    base = r["baseline_latency"]["median_us"]
    lines = [
        "| model (TFLite) | backend | us/token median | speed-up vs LSTM | skim rate | Flop-R |",
        "|---|---|---:|---:|---:|---:|",
        f"| {MODEL.title} | {report['backend']} | {r['model_latency']['median_us']:.2f} | {r['speedup']:.2f}x | "
        f"{r['skim_rate']:.3f} | {r['flop_r'] or 1.0:.2f}x |",
        f"| {BASELINE.title} | {report['baseline_backend']} | {base:.2f} | 1.00x | 0.000 | 1.00x |",
    ]
    return "\n".join(lines)


def export_and_bench(output, args, log=print, stage=None):
    """Exports both trained models under `output` and benchmarks them;
    writes the exports and bench.json / bench.md into `stage` (default
    `output`), a staging folder that will replace `output`, and returns
    (report, table). The report names the exports as under `output`."""
    stage = output if stage is None else stage
    from keras_skim.export.errors import ExportError
    from keras_skim.export.exporter import export_model
    from keras_skim.runtime.bench import markdown_report, run_bench
    from keras_skim.runtime.bench_data import BenchDataError, load_bench_texts
    from keras_skim.runtime.runner import RuntimeModelError

    skim_out = os.path.join(stage, f"{MODEL.name}_tflite")
    lstm_out = os.path.join(stage, f"{BASELINE.name}_tflite")
    log(f"== exporting {MODEL.title} to TFLite (default backend: the custom op where it runs)")
    try:
        result = export_model(os.path.join(output, MODEL.name, "model.keras"), skim_out, force=True)
    except ExportError as err:
        raise CliError(f"{MODEL.title} export failed: {err}") from None
    for note in result.notes:
        log(f"   note: {note}")
    log(f"   {result.parity.message} (backend: {result.metadata['backend']})")
    log(f"== exporting {BASELINE.title} to TFLite (builtin backend)")
    try:
        result = export_model(os.path.join(output, BASELINE.name, "model.keras"), lstm_out, force=True)
    except ExportError as err:
        raise CliError(f"{BASELINE.title} export failed: {err}") from None
    log(f"   {result.parity.message}")
    log(f"== LiteRT benchmark ({args.bench_samples} test texts, {args.bench_repeats} repeats, 1 thread)")
    try:
        texts, labels, description = load_bench_texts(args.data, args.bench_samples)
        report = run_bench(
            skim_out,
            lstm_out,
            texts=texts,
            labels=labels,
            threads=1,
            repeats=args.bench_repeats,
            data_description=description,
        )
    except (BenchDataError, RuntimeModelError) as err:
        raise CliError(f"benchmark failed: {err}") from None
    for key in ("model", "baseline"):
        if report.get(key):
            report[key] = os.path.join(output, os.path.relpath(report[key], stage))
    table = latency_table(report)
    with open(os.path.join(stage, "bench.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    with open(os.path.join(stage, "bench.md"), "w", encoding="utf-8") as f:
        f.write(f"{table}\n\n{markdown_report(report)}")
    return report, table


def run(args):
    from keras_skim import contracts, output_folder
    from keras_skim.training.pipeline import data_input_paths

    inputs = data_input_paths(args.data)
    output_folder.check_output_folder(args.output, force=args.force, inputs=inputs)
    if args.small_units >= args.units:
        raise CliError(f"--small-units ({args.small_units}) must be smaller than --units ({args.units})")
    with output_folder.staged_output_dir(args.output, force=args.force, inputs=inputs) as stage:
        table = _train_both(stage, args)
    print()
    print(table)
    print()
    print("\n".join(preset_lines(args.data)))
    if args.no_export:
        print(f"\nwrote {args.output}/ (models, tokenizers, comparison.md)")
        return 0
    print()
    # A second staged copy of the folder gains the exports and the benchmark,
    # so that the marker lists every file; the exports name the models in
    # `args.output` as their source. If this fails, the trained models stay.
    with output_folder.staged_output_dir(args.output, force=True, inputs=inputs) as stage:
        top = os.path.abspath(args.output)
        shutil.copytree(top, stage, dirs_exist_ok=True, ignore=lambda d, _: [contracts.MARKER_FILE] if d == top else [])
        _, latency = export_and_bench(args.output, args, stage=stage)
    print()
    print(latency)
    print(f"\nwrote {args.output}/ (models, tokenizers, comparison.md, TFLite exports, bench.md)")
    return 0


def _train_both(stage, args):
    """Trains the skim model and its baseline into `stage`; returns the table."""
    from keras_skim.datasets import DatasetUnavailableError, DataSourceError

    rows = []
    for kind in (MODEL, BASELINE):
        print(
            f"== training {kind.title} (d={args.units}"
            + (f", d'={args.small_units}, gamma={args.gamma}" if kind.skims else "")
            + f") on {args.data}"
        )
        try:
            result = load(family_of(kind).train_function)(
                os.path.join(stage, kind.name),
                dataset=args.data,
                cell=kind.cli_name,
                units=args.units,
                small_units=args.small_units,
                gamma=args.gamma,
                epochs=args.epochs,
                limit=args.limit,
                verbose=0 if args.quiet else 1,
            )
        except (DatasetUnavailableError, DataSourceError) as err:
            raise data_error(err) from None
        rows.append((kind.title, result))
    table = comparison_table(rows)
    with open(os.path.join(stage, "comparison.md"), "w", encoding="utf-8") as f:
        f.write(f"# keras-skim demo on {args.data}\n\n{table}\n")
    with open(os.path.join(stage, "comparison.json"), "w", encoding="utf-8") as f:
        json.dump({name: result["test"] for name, result in rows}, f, indent=2)
    return table
