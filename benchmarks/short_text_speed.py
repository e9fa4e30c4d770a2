"""Short texts: a trained Skim-LSTM's custom-op export against a trained
LSTM's export, per text, through `keras-skim bench` (issue 36, item 3).

From two `keras-skim train` folders (the skim model and the LSTM baseline,
trained on the same data) it
  1. exports both with `keras-skim export` (the skim model `--backend
     custom`, the LSTM `--backend builtin`), each in its own process;
  2. runs `keras-skim bench SKIM --baseline LSTM --data DATA --split test
     --thresholds 0,T[,...]` (T: the skim export's own threshold; more with
     --more-thresholds) in this process, on the real test texts, each at its own length;
  3. writes the speed-up per text (the ratio of the summed per-text medians)
     against the LSTM export and against the skim export reading every token
     (threshold 0: the strict gain), each over Flop-R.

`--clock thread` times each call by this thread's CPU time
(`keras_skim.runtime.bench.CLOCK` = time.thread_time) instead of wall time:
on a loaded machine a call that another process preempts is then not
charged for the wait (the call itself is single-threaded, one interpreter
thread).

    python benchmarks/short_text_speed.py SKIM_FOLDER LSTM_FOLDER \\
        [--samples 1276] [--repeats 5] [--clock thread] \\
        [--more-thresholds 0.7,0.9] [--out STEM]

Writes benchmarks/results/<STEM>.{json,md} (default short_text_speed).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import litert_report  # noqa: E402

CLOCKS = {"wall": time.perf_counter, "thread": time.thread_time}
_CLI = "import sys; from keras_skim.cli.main import main; sys.exit(main())"


def export(folder, out, backend):
    """`keras-skim export FOLDER -o OUT --backend BACKEND` in its own process
    (TensorFlow stays out of the timing process); returns the command."""
    argv = ["export", folder, "-o", out, "--backend", backend, "--force"]
    done = subprocess.run([sys.executable, "-c", _CLI, *argv], capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"keras-skim export {folder} failed: {done.stderr.strip().splitlines()[-1:]}")
    return "keras-skim " + " ".join(argv)


def bench(skim, lstm, args, report_dir):
    """`keras-skim bench` in this process with `args.clock`, at threshold 0,
    the skim export's own threshold and `args.more_thresholds`; returns
    (report, argv)."""
    from keras_skim.cli.main import main
    from keras_skim.runtime import bench as bench_module

    with open(os.path.join(skim, "metadata.json")) as f:
        thresholds = ["0", str(json.load(f)["default_threshold"])] + args.more_thresholds.split(",")
    argv = ["bench", skim, "--baseline", lstm, "--data", args.data, "--split", "test", "--samples", str(args.samples)]
    argv += ["--repeats", str(args.repeats), "--thresholds", ",".join(t for t in thresholds if t)]
    argv += ["-o", report_dir, "--force"]
    bench_module.CLOCK = CLOCKS[args.clock]
    try:
        code = main(argv)
    finally:
        bench_module.CLOCK = None
    if code:
        sys.exit(f"keras-skim bench failed ({code})")
    with open(os.path.join(report_dir, "report.json")) as f:
        return json.load(f), "keras-skim " + " ".join(argv)


def train_arguments(folder):
    """The `keras-skim train` arguments a model folder records (how it was trained)."""
    with open(os.path.join(folder, "train_config.json")) as f:
        return json.load(f)["arguments"]


def per_text_us(row, who):
    seconds = row["text_median_seconds"][who]
    return sum(seconds) / len(seconds) * 1e6


def markdown(record):
    report = record["bench"]
    lines = [
        "# Short texts: trained Skim-LSTM export against the trained LSTM export, per text",
        "",
        f"- skim model: `{record['skim_folder']}` -> `{record['export_commands'][0]}`",
        f"- LSTM model: `{record['lstm_folder']}` -> `{record['export_commands'][1]}`",
        f"- trained with: {'; '.join(f'{k}: {json.dumps(v)}' for k, v in record['train_arguments'].items())}",
        f"- bench: `{record['bench_command']}` (clock: {record['clock']})",
        f"- data: {report['data']} ({report['samples']} texts, {report['mean_tokens']:.1f} tokens on average)",
        f"- machine: {json.dumps(record['machine'])}",
        f"- versions: {', '.join(f'{k} {v}' for k, v in record['versions'].items())}",
        f"- command: `{record['command']}`",
        "",
        "Speed-up: the LSTM export's summed per-text medians over the skim export's; strict gain: the skim "
        "export at threshold 0 (reading every token) over itself at the threshold.",
        "",
        "| threshold | skim rate | accuracy | us/text skim | us/text LSTM | Flop-R | speed-up | / Flop-R "
        "| strict gain | / Flop-R |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["results"]:
        cells = [
            f"{r['threshold']:.2f}",
            f"{r['skim_rate']:.3f}",
            f"{r.get('accuracy', float('nan')):.3f}",
            f"{per_text_us(r, 'model'):.1f}",
            f"{per_text_us(r, 'baseline'):.1f}",
            f"{r['flop_r']:.2f}",
            f"{r['speedup']:.2f}",
            f"{r['speedup_over_flop_r']:.2f}",
            f"{r.get('strict_speedup', float('nan')):.2f}",
            f"{r.get('strict_speedup_over_flop_r', float('nan')):.2f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("skim_folder", help="keras-skim train folder of the Skim-LSTM")
    parser.add_argument("lstm_folder", help="keras-skim train folder of the LSTM baseline")
    parser.add_argument("--data", help="bench data (default: the skim model's training data set)")
    parser.add_argument("--samples", type=int, default=1276, help="test texts (default 1276: Rotten Tomatoes' all)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per text (default 5)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall", help="wall time or this thread's CPU time")
    parser.add_argument(
        "--more-thresholds",
        default="",
        metavar="T1,T2",
        help="thresholds to time besides 0 and the export's own (higher: more skimming, shorter reads)",
    )
    parser.add_argument("--out", default="short_text_speed", help="results stem under benchmarks/results/")
    args = parser.parse_args()
    trained = {"skim": train_arguments(args.skim_folder), "lstm": train_arguments(args.lstm_folder)}
    args.data = args.data or trained["skim"]["dataset"]
    load_at_start = [round(x, 2) for x in os.getloadavg()]
    with tempfile.TemporaryDirectory(prefix="short_text_speed_") as work:
        skim, lstm = os.path.join(work, "skim_custom"), os.path.join(work, "lstm_builtin")
        commands = [export(args.skim_folder, skim, "custom"), export(args.lstm_folder, lstm, "builtin")]
        report, bench_command = bench(skim, lstm, args, os.path.join(work, "report"))
    record = {
        "skim_folder": os.path.abspath(args.skim_folder),
        "lstm_folder": os.path.abspath(args.lstm_folder),
        "train_arguments": trained,
        "export_commands": commands,
        "bench_command": bench_command,
        "clock": args.clock,
        "machine": litert_report.timed_machine(load_at_start),
        "versions": report["versions"],
        "command": litert_report.command(),
        "bench": report,
    }
    litert_report.write(args.out, record, markdown(record))


if __name__ == "__main__":
    main()
