"""Turns a trained model folder into a preset: the real test-split evaluation,
`preset.json` (the card as data) and README.md (the model card written from it).

The evaluation is `keras-skim evaluate MODEL --data DATA --json`'s own code
(run in this process), on the whole split, once. A preset listed in
benchmarks/train_presets.py takes its command, description, limits and
paper figures from there; options override them.

    python benchmarks/make_preset.py runs/skim_lstm_imdb --name skim_lstm_imdb --data imdb --baseline lstm_imdb
    python benchmarks/make_preset.py runs/lstm_imdb --name lstm_imdb --data imdb      # a baseline: no --baseline

Writes presets/<name> (or -o FOLDER); --force replaces a preset folder it wrote.
"""

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from train_presets import PRESETS  # noqa: E402


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", metavar="MODEL_FOLDER", help="a model folder as keras-skim train writes it")
    parser.add_argument("--name", required=True, help="the preset's name ([a-z][a-z0-9_]*)")
    parser.add_argument("--data", required=True, help="the data it was trained on (a keras-skim --data value)")
    parser.add_argument("--split", default="test", choices=("test", "validation"))
    parser.add_argument("--baseline", default=None, help="the baseline preset (name or folder); none for a baseline")
    parser.add_argument("--baseline-accuracy", type=float, default=None, help="instead of the baseline's card")
    parser.add_argument("--command", default=None, help="the exact training command (default: train_presets.py's)")
    parser.add_argument("--commit", default=None, help="the commit that trained it (default: git HEAD)")
    parser.add_argument("--license", default="Apache-2.0")
    parser.add_argument("--description", default=None)
    parser.add_argument("--limits", default=None)
    parser.add_argument("--paper-source", default=None)
    parser.add_argument("--paper-accuracy", type=float, default=None)
    parser.add_argument("--paper-skim-rate", type=float, default=None)
    parser.add_argument("--paper-read-fraction", type=float, default=None)
    parser.add_argument("--paper-baseline-accuracy", type=float, default=None)
    parser.add_argument("-o", "--output", default=None, help="preset folder (default: presets/NAME)")
    parser.add_argument("--force", action="store_true", help="replace the preset folder if this script wrote it")
    return parser.parse_args(argv)


def evaluate(model, data, split, limit=None):
    """`keras-skim evaluate MODEL --data DATA --split SPLIT [--limit N] --json` -> its result dict."""
    from keras_skim.cli.main import main

    printed = io.StringIO()
    sliced = [] if limit is None else ["--limit", str(limit)]
    with contextlib.redirect_stdout(printed):
        status = main(["evaluate", model, "--data", data, "--split", split, *sliced, "--json"])
    if status != 0:
        raise SystemExit(f"make_preset: keras-skim evaluate {model} failed (exit {status}; its error is above)")
    text = printed.getvalue()
    # Keras' progress bars may come first on stdout; the JSON object is the last thing printed.
    start = text.rfind("\n{\n") + 1 if not text.startswith("{") else 0
    return json.loads(text[start:])


def reading_fields(model, result):
    """The card's skim_rate (a model that skims) or read_fraction_per_document (one that jumps), or neither."""
    from keras_skim import contracts
    from keras_skim.model_kinds import cli_kind

    if "per_document" in result:
        return {"read_fraction_per_document": float(result["per_document"]["read_fraction"])}
    folder = contracts.resolve_model(model)
    cell = contracts.read_train_config(folder.train_config).arguments.get("cell") if folder.train_config else None
    if cell is not None and cli_kind(cell).skims:
        return {"skim_rate": float(result["skim_rate"])}
    return {}


def baseline_of(args):
    """The card's baseline ({name, test_accuracy}) or None."""
    if args.baseline is None:
        return None
    if args.baseline_accuracy is not None:
        return {"name": os.path.basename(args.baseline.rstrip("/")), "test_accuracy": args.baseline_accuracy}
    from keras_skim.presets import preset_folder

    card = preset_folder(args.baseline).card
    return {"name": card.name, "test_accuracy": card.test_accuracy}


def git_commit():
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        raise SystemExit("make_preset: no git commit here; pass --commit") from None
    return done.stdout.strip()


def paper_of(args, listed):
    """The paper's figures: train_presets.py's, with the options given over them."""
    paper = dict(listed.get("paper") or {})
    given = {
        "source": args.paper_source,
        "test_accuracy": args.paper_accuracy,
        "skim_rate": args.paper_skim_rate,
        "read_fraction_per_document": args.paper_read_fraction,
        "baseline_test_accuracy": args.paper_baseline_accuracy,
    }
    paper.update({key: value for key, value in given.items() if value is not None})
    return paper or None


def training_command(args):
    """The card's exact training command: --command, else train_presets.py's."""
    import shlex

    listed = PRESETS.get(args.name, {})
    command = args.command or (shlex.join(listed["command"]) if listed else None)
    if command is None:
        raise SystemExit(f"make_preset: {args.name} is not in train_presets.py; pass --command")
    return command


def make_card(args):
    """The `PresetCard` of the model folder, from its real evaluation."""
    from keras_skim.presets.preset_card import card_from_record

    listed = PRESETS.get(args.name, {})
    command = training_command(args)
    result = evaluate(args.model, args.data, args.split)
    record = {
        "name": args.name,
        "data": args.data,
        "split": args.split,
        "test_examples": int(result["examples"]),
        "test_accuracy": float(result["accuracy"]),
        **reading_fields(args.model, result),
        "flop_r": float(result["flop_r"]),
        "baseline": baseline_of(args),
        "paper": paper_of(args, listed),
        "command": command,
        "commit": args.commit or git_commit(),
        "license": args.license,
        "description": args.description or listed.get("description"),
        "limits": args.limits or listed.get("limits"),
    }
    # Optional fields left out when unknown; "baseline" stays, null for a baseline itself.
    kept = {key: value for key, value in record.items() if value is not None or key == "baseline"}
    return card_from_record(f"{args.name}/preset.json", kept)


def slim_model_folder(model_dir, folder):
    """Writes into `folder` a copy of the model folder whose model.keras holds what inference and
    fine-tuning need: no optimizer state (a user compiles their own), and word vectors as weights only.
    Models trained before stop 29 also kept the GloVe matrix as the Embedding's Constant initializer,
    in config.json as JSON digits (about 20 MB): the initializer becomes Zeros, the weights stay."""
    import shutil

    import keras

    from keras_skim import contracts
    from keras_skim.model_io import load_model

    files = contracts.resolve_model(model_dir)
    model = load_model(files.model, compile=False)
    for layer in model.layers:
        if isinstance(getattr(layer, "embeddings_initializer", None), keras.initializers.Constant):
            layer.embeddings_initializer = keras.initializers.Zeros()
    model.save(os.path.join(folder, os.path.basename(files.model)))
    for path in (files.tokenizer, files.train_config):
        if path is not None:
            shutil.copyfile(path, os.path.join(folder, os.path.basename(path)))
    return folder


def main(argv=None):
    import tempfile

    from keras_skim.contracts import ContractError
    from keras_skim.model_io import ModelLoadError
    from keras_skim.presets import PresetError
    from keras_skim.presets.preset_sources import NAME_PATTERN
    from keras_skim.presets.preset_writer import write_preset

    args = parse_args(argv)
    if not NAME_PATTERN.fullmatch(args.name):
        raise SystemExit(f"make_preset: --name {args.name!r} must match [a-z][a-z0-9_]* (at most 64 characters)")
    output = args.output or os.path.join(ROOT, "presets", args.name)
    training_command(args)  # refused before any model is read
    try:
        with tempfile.TemporaryDirectory() as slim:
            # The card is the evaluation of the very files the preset ships.
            args.model = slim_model_folder(args.model, slim)
            card = make_card(args)
            folder = write_preset(args.model, output, card, force=args.force)
    except (PresetError, ContractError, ModelLoadError) as err:
        raise SystemExit(f"make_preset: {err}") from None
    rate = card.skim_rate if card.skim_rate is not None else card.read_fraction_per_document
    print(f"wrote {folder}: {card.split} accuracy {card.test_accuracy:.4f} on {card.test_examples} examples", end="")
    print(f", skim/read {rate:.4f}" if rate is not None else "", end="")
    print(f", Flop-R {card.flop_r:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
