"""`keras-skim bench MODEL.tflite`: per-token latency with LiteRT, skim rate,
Flop-R and speed-up against a baseline, without TensorFlow."""

import importlib.util
import json
import os
import sys

from keras_skim.cli.data_args import add_data_argument, add_split_arguments
from keras_skim.cli.model_args import THRESHOLD_HELP, integer_in, output_path, threshold_list

# Interpreter threads: more than any CPU has gains nothing, and tens of
# thousands exhaust the process (keras_skim.runtime.runner.MAX_THREADS).
MAX_THREADS = 256
MAX_SAMPLES = 1_000_000
MAX_REPEATS = 10_000


def add_arguments(parser):
    parser.add_argument("model", metavar="MODEL", help="exported model.tflite or its export folder")
    parser.add_argument("--baseline", metavar="BASE", help="exported baseline model to compare with")
    add_data_argument(
        parser, default_help="random token ids of max_length; a .txt file of one text per line is read unlabelled"
    )
    add_split_arguments(parser, "seed of the held-out split of data without its own split (default 0, as in train)")
    parser.add_argument(
        "--threads",
        type=integer_in(1, MAX_THREADS),
        default=1,
        help=f"interpreter threads, 1 to {MAX_THREADS} (default 1)",
    )
    parser.add_argument(
        "--samples", type=integer_in(1, MAX_SAMPLES), default=50, metavar="N", help="texts to run (default 50)"
    )
    parser.add_argument(
        "--repeats", type=integer_in(1, MAX_REPEATS), default=5, metavar="R", help="timed runs per text (default 5)"
    )
    parser.add_argument(
        "--thresholds",
        metavar="T1,T2",
        type=threshold_list,
        help="comma-separated thresholds to sweep; " + THRESHOLD_HELP,
    )
    parser.add_argument(
        "-o", "--output", type=output_path, metavar="REPORT_DIR", help="write report.json, report.md (and a PNG)"
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace REPORT_DIR if keras-skim wrote it (never a folder with other files)",
    )


def _check_same_inputs(args, probe):
    """A task export (several token inputs) is timed against a baseline that takes the same inputs."""
    from keras_skim.cli.errors import CliError
    from keras_skim.contracts import INPUT_THRESHOLD
    from keras_skim.runtime.runner import SkimRunner

    if not args.baseline:
        return
    baseline = SkimRunner(args.baseline, num_threads=args.threads)
    if bool(probe.metadata.task) or bool(baseline.metadata.task):
        ours, theirs = ([n for n in r.metadata.inputs if n != INPUT_THRESHOLD] for r in (probe, baseline))
        if ours != theirs:
            raise CliError(
                f"{args.baseline}: the baseline takes {', '.join(theirs)}, {args.model} takes {', '.join(ours)}: "
                "time an export against one of the same task"
            )


def run(args):
    import numpy as np

    from keras_skim import output_folder
    from keras_skim.cli.errors import CliError
    from keras_skim.runtime.bench import markdown_report, run_bench, shown
    from keras_skim.runtime.bench_data import BenchDataError, load_bench_texts, random_task_inputs
    from keras_skim.runtime.runner import RuntimeModelError, SkimRunner

    thresholds = args.thresholds
    inputs = [args.model, args.baseline]
    if args.data and os.path.exists(args.data):
        inputs.append(args.data)
    if args.output:
        output_folder.check_output_folder(args.output, force=args.force, inputs=inputs)
    try:
        probe = SkimRunner(args.model, num_threads=args.threads)
        for path, runner in ((args.model, probe),) + (
            ((args.baseline, SkimRunner(args.baseline, num_threads=args.threads)),) if args.baseline else ()
        ):
            if runner.takes_sequence:
                raise CliError(
                    f"{path}: the export takes float sequences [T, {runner.metadata.feature_dim}], not texts or "
                    "token ids, and keras-skim bench times texts; time it with SkimRunner(folder).run_sequence"
                )
        if thresholds and probe.kind.jumps:
            raise CliError(
                f"--thresholds does not apply to {args.model}: a {probe.kind.title}'s agents "
                "decide what to read, skip and jump"
            )
        vocab = probe.vocabulary_size
        if args.baseline:
            vocab = min(vocab, SkimRunner(args.baseline, num_threads=args.threads).vocabulary_size)
        texts = labels = token_ids = None
        _check_same_inputs(args, probe)
        if probe.metadata.task:
            if args.data:
                raise CliError(
                    f"--data does not apply to {args.model}: a question-answering export is timed on random token ids"
                )
            token_ids, description = random_task_inputs(probe.metadata, vocab, args.samples)
        elif args.data:
            texts, labels, description = load_bench_texts(
                args.data,
                args.samples,
                split=args.split,
                split_seed=args.split_seed or 0,
                num_classes=probe.metadata.num_classes,
                class_names=probe.metadata.class_names,
            )
            if probe.tokenizer is None:
                raise CliError(f"{args.model}: the export has no tokenizer.json, so it cannot read texts")
        else:
            rng = np.random.default_rng(0)
            length = int(probe.max_length or 200)
            # Ids both models know (the baseline may have a smaller vocabulary).
            token_ids = [rng.integers(1, vocab, size=length) for _ in range(args.samples)]
            description = f"random token ids, {length} tokens each"
        report = run_bench(
            args.model,
            args.baseline,
            texts=texts,
            labels=labels,
            token_ids=token_ids,
            thresholds=thresholds,
            threads=args.threads,
            repeats=args.repeats,
            data_description=description,
        )
    except (RuntimeModelError, BenchDataError) as err:
        raise CliError(str(err)) from None
    markdown = markdown_report(report)
    print(markdown, end="")
    if args.output:
        _write_report(args, inputs, report, markdown)
        print(f"wrote {shown(os.path.abspath(args.output))}")
    return 0


def _write_report(args, inputs, report, markdown):
    """report.json, report.md (and the sweep's PNG) into REPORT_DIR, all or
    nothing; a full disk or another write failure is one line."""
    from keras_skim import output_folder
    from keras_skim.cli.errors import CliError
    from keras_skim.runtime.bench import plot_sweep, shown

    try:
        with output_folder.staged_output_dir(args.output, force=args.force, inputs=inputs) as stage:
            with open(os.path.join(stage, "report.json"), "w", encoding="utf-8") as f:
                json.dump(report, f, indent=1)
            with open(os.path.join(stage, "report.md"), "w", encoding="utf-8") as f:
                f.write(markdown)
            if len(report["results"]) > 1 and importlib.util.find_spec("matplotlib") is None:
                # the runtime-only install has no matplotlib: the reports are written, the plot is not
                print("threshold_sweep.png not written: pip install matplotlib", file=sys.stderr)
            elif len(report["results"]) > 1:
                plot_sweep(report, os.path.join(stage, "threshold_sweep.png"))
    except OSError as err:
        reason = err.strerror or str(err)
        raise CliError(f"{shown(os.path.abspath(args.output))}: cannot write the report ({reason})") from None
