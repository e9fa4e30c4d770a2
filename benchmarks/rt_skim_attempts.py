"""Attempts at issue 31's Rotten Tomatoes target for the Skim-LSTM: test
accuracy at least the LSTM's, at a skim rate of at least 0.5 (item 4).

Every attempt is the Skim-RNN paper's protocol (Adam 1e-4, batch 128, up to
200 epochs, early stopping after 3,000 steps without validation gain, the
best epoch kept) with one change, listed in ATTEMPTS with its exact
training command; a change that applies to the LSTM too (frozen embeddings)
gets an LSTM trained the same way, its baseline. For each model folder
found, this script:

* evaluates it on the validation split at the threshold it was trained with
  (0.5) and, for a skim model, at each threshold of THRESHOLDS;
* chooses on validation only: the trained threshold, and the threshold whose
  validation skim rate is at least 0.5 at the best validation accuracy
  (the lowest such threshold on a tie); none when no threshold skims half;
* evaluates the test split once per chosen threshold (a baseline: once),
  and says whether the target is met against the same-protocol LSTM and
  against the best LSTM of all attempts.

    python benchmarks/rt_skim_attempts.py                 # every attempt whose model folder exists
    python benchmarks/rt_skim_attempts.py frozen_glove    # these attempts only; the others stay as recorded

Writes benchmarks/results/rt_skim_attempts.{json,md} (machine, versions,
command, load); an attempt whose model is not here keeps its earlier record,
or is listed as not trained with the command that trains (or resumes) it.
"""

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for path in (ROOT, HERE):
    if path not in sys.path:
        sys.path.insert(0, path)

import litert_report  # noqa: E402

OUT = "rt_skim_attempts"
DATA = "rotten_tomatoes"
TARGET_SKIM = 0.5
THRESHOLDS = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.97, 0.99)
PROTOCOL = "--learning-rate 1e-4 --batch-size 128 --epochs 200 --patience-steps 3000"
SKIM = "--cell skim-lstm --units 100 --small-units 10"


def _train(run, options):
    """The attempt's resumable training command (nice -n 19 in the background; the same line resumes it)."""
    return f"keras-skim train --data {DATA} {options} {PROTOCOL} --quiet --resume --run-name {run} -o runs/{run}"


# name -> (what it changes, model: a preset name or runs/ folder, its baseline attempt or None, training command:
# None for a committed preset, whose card holds it)
ATTEMPTS = {
    "lstm_paper_protocol": {
        "changes": "the committed LSTM preset (fine-tuned GloVe 6B 50d)",
        "model": "lstm_rotten_tomatoes",
        "baseline": None,
        "command": None,  # the preset card's
    },
    "skim_paper_protocol": {
        "changes": "the committed Skim-LSTM preset (gamma 0.01, fine-tuned GloVe 6B 50d)",
        "model": "skim_lstm_rotten_tomatoes",
        "baseline": "lstm_paper_protocol",
        "command": None,
    },
    "lstm_frozen_glove": {
        "changes": "the LSTM with its GloVe embedding frozen (--freeze-embedding): the baseline of frozen_glove",
        "model": "runs/rt_attempt_lstm_frozen",
        "baseline": None,
        "command": _train("rt_attempt_lstm_frozen", "--cell lstm --units 100 --freeze-embedding"),
    },
    "frozen_glove": {
        "changes": "the Skim-LSTM (gamma 0.01) with its GloVe embedding frozen (--freeze-embedding), against "
        "overfitting the small corpus",
        "model": "runs/rt_attempt_skim_frozen",
        "baseline": "lstm_frozen_glove",
        "command": _train("rt_attempt_skim_frozen", f"{SKIM} --gamma 0.01 --freeze-embedding"),
    },
    "gamma_0.1": {
        "changes": "the Skim-LSTM with a ten times larger skim-loss weight (gamma 0.1), fine-tuned GloVe",
        "model": "runs/rt_attempt_skim_gamma01",
        "baseline": "lstm_paper_protocol",
        "command": _train("rt_attempt_skim_gamma01", f"{SKIM} --gamma 0.1"),
    },
}


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help=f"attempts to evaluate (default: all: {', '.join(ATTEMPTS)})")
    return parser.parse_args(argv)


def model_path(attempt):
    """The attempt's model: a runs/ folder relative to the repository root, or a preset name."""
    model = attempt["model"]
    return os.path.join(ROOT, model) if model.startswith("runs/") else model


def available(attempt):
    model = attempt["model"]
    if model.startswith("runs/"):
        return os.path.isfile(os.path.join(ROOT, model, "train_config.json"))
    from keras_skim.presets import list_presets

    return model in list_presets()


def load(model):
    """(Keras model, {split: (ids, labels)}) for the validation and test splits, as `keras-skim evaluate` reads
    them (the same folder, tokenizer and data lookups)."""
    from keras_skim.cli.model_args import load_text_model, model_record, text_tokenizer
    from keras_skim.datasets.encoded_splits import load_encoded
    from keras_skim.datasets.registry import resolve_data

    folder, config, recorded = model_record(model)
    keras_model = load_text_model(folder, "evaluate")
    tokenizer = text_tokenizer(keras_model, None, folder)
    source = resolve_data(DATA, split_seed=None, recorded=recorded, labelled=True)
    max_length = keras_model.inputs[0].shape[1] or config.max_length
    splits = {split: load_encoded(source, tokenizer, split, max_length)[:2] for split in ("validation", "test")}
    return keras_model, splits


def measure(model, encoded, threshold):
    """{accuracy, skim_rate, flop_r, threshold} as `keras-skim evaluate --threshold` computes them."""
    from keras_skim.models.text_classifier.text_classifier_commands import evaluation

    result = evaluation(model, *encoded, threshold)
    return {key: result.get(key) for key in ("accuracy", "skim_rate", "flop_r", "threshold")}


def chosen_on_validation(sweep):
    """The validation row whose skim rate is at least TARGET_SKIM at the best accuracy (lowest threshold on a
    tie), or None."""
    skimming = [row for row in sweep if row["skim_rate"] >= TARGET_SKIM]
    return max(skimming, key=lambda row: (row["accuracy"], -row["threshold"])) if skimming else None


def training_command(attempt):
    """The attempt's exact training command: its own, or its preset card's."""
    if attempt["command"] is not None:
        return attempt["command"]
    from keras_skim.presets import list_presets

    return list_presets()[attempt["model"]].command


def evaluate_attempt(attempt):
    """The attempt's validation sweep and its test figures at each threshold chosen on validation."""
    from keras_skim.model_kinds import skim_gate

    started = time.process_time()
    model, splits = load(model_path(attempt))
    skims = bool(skim_gate().gated_cells(model))
    thresholds = THRESHOLDS if skims else (None,)
    sweep = [measure(model, splits["validation"], threshold) for threshold in thresholds]
    choices = {"trained": sweep[0]}
    if skims:
        choices["validation_skim_at_least_half"] = chosen_on_validation(sweep)
    test = {
        rule: None if row is None else {"validation": row, "test": measure(model, splits["test"], row["threshold"])}
        for rule, row in choices.items()
    }
    return {"validation_sweep": sweep, "chosen": test, "cpu_seconds": round(time.process_time() - started, 1)}


def verdicts(records):
    """Adds to each skim attempt's chosen rows whether they meet the target: against its own baseline and
    against the best test accuracy of any LSTM attempt."""
    lstm = {name: rec for name, rec in records.items() if ATTEMPTS[name]["baseline"] is None and "chosen" in rec}
    best = max((rec["chosen"]["trained"]["test"]["accuracy"] for rec in lstm.values()), default=None)
    for name, record in records.items():
        own = lstm.get(ATTEMPTS[name]["baseline"] or "")
        for row in (record.get("chosen") or {}).values():
            if row is None or ATTEMPTS[name]["baseline"] is None:
                continue
            test = row["test"]
            skims_half = test["skim_rate"] >= TARGET_SKIM
            base = own["chosen"]["trained"]["test"]["accuracy"] if own else None
            row["meets_target_vs_own_baseline"] = None if base is None else skims_half and test["accuracy"] >= base
            row["meets_target_vs_best_lstm"] = None if best is None else skims_half and test["accuracy"] >= best
    return records


def _previous():
    path = os.path.join(litert_report.RESULTS, OUT + ".json")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f).get("attempts", {})


def _row_line(name, rule, row):
    if row is None:
        return f"| {name} | {rule} | no threshold skims half on validation | | | | |"
    val, test = row["validation"], row["test"]
    target = row.get("meets_target_vs_own_baseline"), row.get("meets_target_vs_best_lstm")
    verdict = " / ".join("-" if value is None else ("yes" if value else "no") for value in target)
    threshold = "-" if val["threshold"] is None else f"{val['threshold']:g}"
    return (
        f"| {name} | {rule} | {threshold} | {val['accuracy']:.4f} / {val['skim_rate']:.4f} | "
        f"{test['accuracy']:.4f} | {test['skim_rate']:.4f} | {verdict} |"
    )


def markdown(record):
    lines = [
        "# Rotten Tomatoes: attempts at the Skim-LSTM target (issue 31, item 4)",
        "",
        f"`{record['command']}` (commit {record['commit']}). Target: test accuracy at least the LSTM's at a test "
        f"skim rate of at least {TARGET_SKIM}. Thresholds are chosen on validation only; the test split is "
        "evaluated once per chosen threshold. Verdict: against the attempt's own baseline / against the best "
        f"LSTM. Load average at the end: {record['machine']['load_average_at_end']}.",
        "",
        "| attempt | threshold rule | threshold | validation acc / skim | test acc | test skim | target met |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, rec in record["attempts"].items():
        for rule, row in (rec.get("chosen") or {"not trained yet": None}).items():
            lines.append(_row_line(name, rule, row) if "chosen" in rec else f"| {name} | not trained yet | | | | | |")
    lines += ["", "What each attempt changed, and the command that trains it:", ""]
    attempts = record["attempts"]
    lines += [f"- **{name}**: {rec['changes']}. `{rec['command']}`" for name, rec in attempts.items()]
    lines += ["", "Validation sweeps (threshold: accuracy / skim rate):", ""]
    for name, rec in attempts.items():
        sweep = rec.get("validation_sweep") or []
        if len(sweep) > 1:
            cells = [f"{row['threshold']:g}: {row['accuracy']:.4f} / {row['skim_rate']:.4f}" for row in sweep]
            lines.append(f"- **{name}**: " + "; ".join(cells))
    return "\n".join(lines) + "\n"


def main(argv=None):
    import subprocess

    args = parse_args(argv)
    unknown = [name for name in args.names if name not in ATTEMPTS]
    if unknown:
        print(f"rt_skim_attempts: unknown attempt {', '.join(unknown)} (known: {', '.join(ATTEMPTS)})", file=sys.stderr)
        return 2
    records = {name: rec for name, rec in _previous().items() if name in ATTEMPTS}
    for name in args.names or ATTEMPTS:
        if available(ATTEMPTS[name]):
            records[name] = {**ATTEMPTS[name], **evaluate_attempt(ATTEMPTS[name])}
            records[name]["command"] = training_command(ATTEMPTS[name])
        elif name not in records:
            records[name] = dict(ATTEMPTS[name])
    ordered = {name: records[name] for name in ATTEMPTS if name in records}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    record = {
        "command": litert_report.command(),
        "commit": commit.stdout.strip() or None,
        "machine": litert_report.machine(load_average=True),
        "versions": litert_report.versions(),
        "target": {"skim_rate_at_least": TARGET_SKIM, "test_accuracy_at_least": "the LSTM's"},
        "thresholds": list(THRESHOLDS),
        "attempts": verdicts(ordered),
    }
    litert_report.write(OUT, record, markdown(record))
    return 0


if __name__ == "__main__":
    sys.exit(main())
