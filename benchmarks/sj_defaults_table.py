"""The Structural-Jump-LSTM defaults on several data sets (issue 35, item 3), as one table.

Reads the results of the default schedule's runs (`sj_authors_schedule.py
--schedule default --tag defaults_...`, and any other result JSON of the
same shape named `sj_default_schedule_*_defaults_*.json`) and writes
results/sj_defaults_table.md and .json: per data set and seed, the full
reader (the run's own phase 1: validation and test accuracy), the model the
run kept (speed reader or full reader, its validation and test accuracy and
read fraction) and an LSTM of the same size (128 units, GloVe 6B 50d) on
the same training texts. No training; seconds.

    python benchmarks/sj_defaults_table.py
"""

import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
PATTERN = "sj_default_schedule_*_defaults_*.json"
_RUN = "nice -n 19 python benchmarks/sj_authors_schedule.py --schedule default --resume"
_LSTM = "nice -n 19 python benchmarks/sj_fixed_readers.py --ks all --epochs 10 --batch-size 32"
_SLICE = "--slice-lstm benchmarks/results/sj_fixed_readers"
# The runs of issue 35's item 3 (one at a time, each resumable: rerun its command): result stem -> command.
PLANNED = {
    **{
        f"rotten_tomatoes_defaults_limit2000_seed{seed}": (
            f"{_LSTM} --data rotten_tomatoes --limit 2000 --seed {seed} --tag limit2000_seed{seed}_lstm; "
            if seed
            else ""
        )
        + f"{_RUN} --data rotten_tomatoes --limit 2000 --seed {seed} --tag defaults_limit2000_seed{seed} "
        + f"{_SLICE}_rotten_tomatoes_limit2000{f'_seed{seed}' if seed else ''}_lstm.json"
        for seed in (0, 1, 2)
    },
    "rotten_tomatoes_defaults_seed0": f"{_RUN} --data rotten_tomatoes --tag defaults_seed0",
    "imdb_defaults_limit2000_seed0": f"{_LSTM} --data imdb --limit 2000 --tag limit2000_lstm; "
    f"{_RUN} --data imdb --limit 2000 --tag defaults_limit2000_seed0 {_SLICE}_imdb_limit2000_lstm.json",
    "own_csv_defaults_seed0": "nice -n 19 python benchmarks/sj_own_csv.py",
    # The longest texts the registries carry: IMDB reviews read whole (up to 1,000 tokens), a slice.
    "imdb_defaults_limit4000_len1000_seed0": f"{_LSTM} --data imdb --limit 4000 --max-length 1000 "
    f"--tag limit4000_len1000_lstm; {_RUN} --data imdb --limit 4000 --max-length 1000 "
    f"--tag defaults_limit4000_len1000_seed0 {_SLICE}_imdb_limit4000_len1000_lstm.json",
}


def row_of(path):
    """One table row from a run's result JSON."""
    with open(path) as f:
        report = json.load(f)
    arguments, kept = report["arguments"], report["speed_reading"]
    lstm = report.get("slice_lstm") or (None if arguments.get("limit") else report.get("lstm"))
    return {
        "result": os.path.basename(path),
        "data": arguments["data"],
        "limit": arguments.get("limit"),
        "seed": arguments.get("seed", 0),
        "train_examples": report["train_examples"],
        "validation_examples": report["validation"]["examples"],
        "full_reader": {
            "validation_accuracy": report["full_read"]["validation_accuracy"],
            "test_accuracy": report["full_read"]["test_accuracy"],
        },
        "kept": kept["kept"],
        "why": kept["why"],
        "validation": kept["validation"],
        "test": {k: report["test"][k] for k in ("accuracy", "read_fraction")},
        "lstm": None if lstm is None else {"test_accuracy": lstm["accuracy"], "source": lstm["source"]},
    }


def markdown(rows):
    pct = lambda v: f"{100 * v:.1f}%"  # noqa: E731
    lines = [
        "# Structural-Jump-LSTM defaults against the full reader and an LSTM of the same size",
        "",
        "Command: `python benchmarks/sj_defaults_table.py` (from the result JSONs named in the last column). "
        "Default schedule (issue 35): phase 2 keeps the least-read validation within one point of the run's own "
        "full reader (phase 1's best validation accuracy), lowering the reading cost while validations fall "
        "short, else the full reader. Full reader: the run's phase-1 model (validation / test accuracy, 100% "
        "read). LSTM: 128 units, GloVe 6B 50d, trained on the same training texts (a `sj_fixed_readers.py` "
        "k=all row for a slice, `sj_reproduction.py` for a whole set). Read: corpus fraction of the test words.",
        "",
        "| data | train docs | seed | full reader val / test | kept | kept val (read) | kept test (read) | "
        "test vs full reader | LSTM test | test vs LSTM | result |",
        "|---|---:|---:|---|---|---|---|---:|---:|---:|---|",
    ]
    for r in rows:
        full, val, test, lstm = r["full_reader"], r["validation"], r["test"], r["lstm"]
        name = "own CSV, 3 classes" if r["data"] == "own_csv" else r["data"]
        name += f", {r['limit']}-text slice" if r["limit"] else ""
        lstm_cells = (
            ["-", "-"]
            if lstm is None
            else [f"{lstm['test_accuracy']:.3f}", f"{100 * (test['accuracy'] - lstm['test_accuracy']):+.1f} pt"]
        )
        lines.append(
            f"| {name} | {r['train_examples']} | {r['seed']} | {full['validation_accuracy']:.3f} / "
            f"{full['test_accuracy']:.3f} | {r['kept']} | {val['accuracy']:.3f} ({pct(val['read_fraction'])}) | "
            f"{test['accuracy']:.3f} ({pct(test['read_fraction'])}) | "
            f"{100 * (test['accuracy'] - full['test_accuracy']):+.1f} pt | "
            + " | ".join(lstm_cells)
            + f" | {r['result'].removesuffix('.json')} |"
        )
    lines += ["", "Why each run kept what it kept:", ""]
    lines += [f"- {r['result'].removesuffix('.json')}: {r['why']}" for r in rows]
    done = {r["result"].removesuffix(".json").removeprefix("sj_default_schedule_") for r in rows}
    missing = [(stem, command) for stem, command in PLANNED.items() if stem not in done]
    if missing:
        lines += ["", "Still to run (from the repository root; each resumes its checkpoint):", ""]
        lines += [f"- {stem}: `{_still_to_run(command)}`" for stem, command in missing]
    return "\n".join(lines) + "\n"


def _still_to_run(command):
    """`command` without its LSTM part when that LSTM's result is already there."""
    parts = command.split("; ")
    lstm = command.split("--slice-lstm ")[-1] if "--slice-lstm " in command else None
    if len(parts) == 2 and lstm and os.path.exists(os.path.join(os.path.dirname(HERE), lstm)):
        return parts[1]
    return command


def main():
    sys.path.insert(0, os.path.dirname(HERE))
    sys.path.insert(0, HERE)
    import litert_report

    paths = sorted(p for p in glob.glob(os.path.join(RESULTS, PATTERN)) if not p.endswith("_progress.json"))
    rows = [row_of(p) for p in paths]
    report = {"command": litert_report.command(), "rows": rows}
    litert_report.write_files(os.path.join(RESULTS, "sj_defaults_table"), report, markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
