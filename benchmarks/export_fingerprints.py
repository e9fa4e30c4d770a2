"""Fingerprints of the exports of one model of each kind and backend (issue 17).

A refactor of the exporter must not change what it writes: the same trained
model, exported before and after, gives the same bytes. This script trains a
tiny model of each kind ONCE (kept under ~/.cache/keras_skim/export_fingerprints,
so every checkout exports the very same .keras files), exports each one with
the checkout's own `keras-skim export` for every backend it has, and records
the sha256 of every file the export wrote (the output marker, which lists
these same hashes, is left out).

    python benchmarks/export_fingerprints.py --label before    # on the old commit
    python benchmarks/export_fingerprints.py --label after     # on the new one
    python benchmarks/export_fingerprints.py --compare results/export_fingerprints_before.json \
        results/export_fingerprints_after.json

`--compare` prints one line per export (identical / differs, and which files)
and exits 1 when any differs.
"""

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKOUT = os.path.dirname(HERE)
MODELS = os.path.join(os.path.expanduser("~"), ".cache", "keras_skim", "export_fingerprints")
MARKER = ".keras-skim-output.json"

TRAIN = ["--data", "rotten_tomatoes", "--limit", "600", "--units", "16", "--max-length", "30", "--no-glove", "--quiet"]
# kind -> `keras-skim train` arguments
KINDS = {
    "skim-lstm": ["--cell", "skim-lstm", "--small-units", "4", "--epochs", "1"],
    "skim-gru": ["--cell", "skim-gru", "--small-units", "4", "--epochs", "1"],
    "lstm": ["--cell", "lstm", "--epochs", "1"],
    "gru": ["--cell", "gru", "--epochs", "1"],
    "sj-lstm": ["--cell", "sj-lstm", "--agent-units", "4", "--full-read-epochs", "1", "--speed-read-epochs", "1"],
}
# kind -> the exports to fingerprint: (name, export arguments)
EXPORTS = {
    "skim-lstm": [
        ("custom", ["--backend", "custom"]),
        ("builtin", ["--backend", "builtin"]),
        ("custom-int8", ["--backend", "custom", "--quantize", "int8"]),
    ],
    "skim-gru": [("custom", ["--backend", "custom"]), ("builtin", ["--backend", "builtin"])],
    "lstm": [("builtin", ["--backend", "builtin"])],
    "gru": [("builtin", ["--backend", "builtin"])],
    "scornn": [("builtin", ["--backend", "builtin"])],
    "sj-lstm": [("custom", ["--backend", "custom"]), ("builtin", ["--backend", "builtin"])],
}


def checkout_env(checkout):
    env = dict(os.environ, PYTHONPATH=checkout, TF_CPP_MIN_LOG_LEVEL="2", KERAS_BACKEND="tensorflow")
    env.pop("KERAS_SKIM_RUN_DEADLINE", None)
    return env


def keras_skim(checkout, args):
    result = subprocess.run(
        [sys.executable, "-m", "keras_skim", *args], cwd=checkout, env=checkout_env(checkout), capture_output=True
    )
    if result.returncode != 0:
        raise SystemExit(f"keras-skim {' '.join(args)} failed:\n{result.stderr.decode(errors='replace')[-2000:]}")


SCORNN_MODEL = """
import sys, keras
from keras_skim.models.scornn.scornn_cell import ScoRNNCell
keras.utils.set_random_seed(0)
vocabulary, path = int(sys.argv[1]), sys.argv[2]
model = keras.Sequential([
    keras.Input((None,), dtype="int32"),
    keras.layers.Embedding(vocabulary, 8, mask_zero=True),
    keras.layers.RNN(ScoRNNCell(16)),
    keras.layers.Dense(2, activation="softmax"),
])
model.save(path)
"""


def make_models(checkout, models):
    """Trains (once) a model folder per kind; scoRNN, which `train` has no
    cell for, is a seeded untrained Keras model with the LSTM's tokenizer."""
    for kind, args in KINDS.items():
        folder = os.path.join(models, kind)
        if not os.path.isdir(folder):
            keras_skim(checkout, ["train", *TRAIN, *args, "-o", folder])
    folder = os.path.join(models, "scornn")
    if not os.path.isdir(folder):
        staging = folder + ".staging"
        shutil.rmtree(staging, ignore_errors=True)
        os.makedirs(staging)
        shutil.copy(os.path.join(models, "lstm", "tokenizer.json"), staging)
        with open(os.path.join(staging, "tokenizer.json"), encoding="utf-8") as f:
            vocabulary = len(json.load(f)["vocabulary"]) + 2
        subprocess.run(
            [sys.executable, "-c", SCORNN_MODEL, str(vocabulary), os.path.join(staging, "model.keras")],
            cwd=checkout,
            env=checkout_env(checkout),
            check=True,
            capture_output=True,
        )
        os.rename(staging, folder)


def model_path(models, kind):
    return os.path.join(models, kind, "model.keras") if kind == "scornn" else os.path.join(models, kind)


def folder_hashes(folder):
    hashes = {}
    for root, _, files in os.walk(folder):
        for name in sorted(files):
            if name == MARKER:
                continue
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                hashes[os.path.relpath(path, folder)] = hashlib.sha256(f.read()).hexdigest()
    return dict(sorted(hashes.items()))


def fingerprint(checkout, models):
    results = {}
    with tempfile.TemporaryDirectory() as scratch:
        for kind, exports in EXPORTS.items():
            for name, args in exports:
                out = os.path.join(scratch, f"{kind}-{name}")
                source = model_path(models, kind)
                tokenizer = ["--tokenizer", os.path.join(models, kind, "tokenizer.json")] if kind == "scornn" else []
                keras_skim(checkout, ["export", source, "-o", out, *tokenizer, *args])
                results[f"{kind} {name}"] = folder_hashes(out)
    return results


def git_commit(checkout):
    result = subprocess.run(["git", "rev-parse", "HEAD"], cwd=checkout, capture_output=True, text=True)
    return result.stdout.strip()


def compare(before_file, after_file):
    with open(before_file, encoding="utf-8") as f:
        before = json.load(f)
    with open(after_file, encoding="utf-8") as f:
        after = json.load(f)
    differ = 0
    print(f"before {before['commit'][:10]} ({before['label']}), after {after['commit'][:10]} ({after['label']})")
    for export in sorted(set(before["exports"]) | set(after["exports"])):
        old, new = before["exports"].get(export), after["exports"].get(export)
        if old is None or new is None:
            print(f"{export}: only {'after' if old is None else 'before'}")
            differ += 1
            continue
        changed = sorted(name for name in set(old) | set(new) if old.get(name) != new.get(name))
        print(f"{export}: {'identical' if not changed else 'differs: ' + ', '.join(changed)}")
        differ += bool(changed)
    return 1 if differ else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--label", help="name of this checkout's result (before, after, a commit)")
    parser.add_argument("--checkout", default=CHECKOUT, help="the checkout whose exporter runs (default: this one)")
    parser.add_argument("--models", default=MODELS, help="the trained models, made once and shared by checkouts")
    parser.add_argument("--results", default=os.path.join(HERE, "results"))
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    if not args.label:
        parser.error("--label is required (or --compare)")
    checkout = os.path.abspath(args.checkout)
    make_models(checkout, args.models)
    record = {
        "label": args.label,
        "commit": git_commit(checkout),
        "command": "python benchmarks/export_fingerprints.py " + " ".join(sys.argv[1:]),
        "machine": f"{platform.platform()}, {os.cpu_count()} CPUs",
        "models": args.models,
        "exports": fingerprint(checkout, args.models),
    }
    os.makedirs(args.results, exist_ok=True)
    path = os.path.join(args.results, f"export_fingerprints_{args.label}.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    print(f"{len(record['exports'])} exports fingerprinted: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
