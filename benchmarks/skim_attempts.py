"""Attempts at issue 31's Skim-LSTM targets (item 4), one table of attempts per data set (`--data`):

* Rotten Tomatoes: test accuracy at least the LSTM's, at a skim rate of at least 0.5;
* IMDB: test accuracy at least 0.900 and within 0.3 point of the LSTM's, at a skim rate of at least 0.8.

Every attempt is the Skim-RNN paper's protocol (Adam 1e-4, batch 128, up to
200 epochs, early stopping after 3,000 steps without validation gain, the
best epoch kept) with one change, listed in its set's attempts with its exact
training command; a change that applies to the LSTM too (frozen embeddings,
dropout) gets an LSTM trained the same way, its baseline. For each model
folder found, this script:

* evaluates it on the validation split at the threshold it was trained with
  (0.5) and, for a skim model, at each threshold of THRESHOLDS;
* chooses on validation only: the trained threshold, and the threshold whose
  validation skim rate reaches the target's at the best validation accuracy
  (the lowest such threshold on a tie); none when no threshold skims that much;
* evaluates the test split once per chosen threshold (a baseline: once),
  and says whether the target is met against the same-protocol LSTM and
  against the best LSTM of all attempts.

    python benchmarks/skim_attempts.py --data rotten_tomatoes              # every attempt whose model exists
    python benchmarks/skim_attempts.py --data rotten_tomatoes frozen_glove # these only; the others as recorded
    python benchmarks/skim_attempts.py --data imdb

Writes benchmarks/results/<the data's OUT>.{json,md} (machine, versions,
command, load); an attempt whose model is not here keeps its earlier record,
or is listed as not trained with the command that trains (or resumes) it.
A `runs/` model is looked for in the checkout's `runs/` folder (where the
attempt's command writes it).
"""

import argparse
import dataclasses
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
from train_presets import command_line  # noqa: E402

THRESHOLDS = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.97, 0.99)
PROTOCOL = "--learning-rate 1e-4 --batch-size 128 --epochs 200 --patience-steps 3000"
SKIM = "--cell skim-lstm --units 100 --small-units 10"


@dataclasses.dataclass(frozen=True)
class Target:
    """Issue 31's bar for a skim model on one data set: a test skim rate of at least `skim_rate`, a test
    accuracy of at least `accuracy` (None: no floor of its own) and at most `below_baseline` under the
    baseline LSTM's."""

    skim_rate: float
    accuracy: float = None
    below_baseline: float = 0.0

    def met(self, test, baseline_accuracy):
        floor = baseline_accuracy - self.below_baseline
        if self.accuracy is not None:
            floor = max(floor, self.accuracy)
        return test["skim_rate"] >= self.skim_rate and test["accuracy"] >= floor - 1e-12

    def words(self):
        floor = f"at least {self.accuracy:.3f} and " if self.accuracy is not None else ""
        within = f"within {self.below_baseline * 100:g} point of " if self.below_baseline else "at least "
        return f"test accuracy {floor}{within}the LSTM's at a test skim rate of at least {self.skim_rate}"


@dataclasses.dataclass(frozen=True)
class AttemptSet:
    """The attempts on one data set: the results file's stem, the target and {name: attempt}."""

    out: str
    title: str
    target: Target
    attempts: dict


def _train(data, run, options):
    """The attempt's resumable training command (nice -n 19 in the background; the same line resumes it)."""
    return f"keras-skim train --data {data} {options} {PROTOCOL} --quiet --resume --run-name {run} -o runs/{run}"


def _preset(changes, model, baseline=None):
    """An attempt that is a preset of benchmarks/train_presets.py: its command is the one there."""
    return {"changes": changes, "model": model, "baseline": baseline, "command": command_line(model)}


def _run(data, changes, run, options, baseline=None):
    return {"changes": changes, "model": f"runs/{run}", "baseline": baseline, "command": _train(data, run, options)}


# name -> (what it changes, model: a preset name or runs/ folder, its baseline attempt or None, training command)
RT = "rotten_tomatoes"
ROTTEN_TOMATOES = AttemptSet(
    out="rt_skim_attempts",
    title="Rotten Tomatoes",
    target=Target(skim_rate=0.5),
    attempts={
        "lstm_paper_protocol": _preset("the committed LSTM preset (fine-tuned GloVe 6B 50d)", "lstm_rotten_tomatoes"),
        # The first Skim-LSTM preset (the paper's gamma 0.01), replaced by gamma_0.1's model: its folder is gone,
        # its record stays (trained before --resume existed, hence its own command).
        "skim_paper_protocol": {
            "changes": "the Skim-LSTM with the paper's gamma 0.01 (fine-tuned GloVe 6B 50d), the first preset",
            "model": "runs/skim_lstm_rotten_tomatoes",
            "baseline": "lstm_paper_protocol",
            "command": f"keras-skim train --data {RT} {SKIM} --gamma 0.01 {PROTOCOL} -o runs/skim_lstm_rotten_tomatoes "
            "--quiet",
        },
        "lstm_frozen_glove": _run(
            RT,
            "the LSTM with its GloVe embedding frozen (--freeze-embedding): the baseline of frozen_glove",
            "rt_attempt_lstm_frozen",
            "--cell lstm --units 100 --freeze-embedding",
        ),
        "frozen_glove": _run(
            RT,
            "the Skim-LSTM (gamma 0.01) with its GloVe embedding frozen (--freeze-embedding), against "
            "overfitting the small corpus",
            "rt_attempt_skim_frozen",
            f"{SKIM} --gamma 0.01 --freeze-embedding",
            "lstm_frozen_glove",
        ),
        "gamma_0.1": _run(
            RT,
            "the Skim-LSTM with a ten times larger skim-loss weight (gamma 0.1), fine-tuned GloVe: the preset",
            "rt_attempt_skim_gamma01",
            f"{SKIM} --gamma 0.1",
            "lstm_paper_protocol",
        ),
    },
)
IMDB = AttemptSet(
    out="imdb_skim_attempts",
    title="IMDB",
    target=Target(skim_rate=0.8, accuracy=0.9, below_baseline=0.003),
    attempts={
        "lstm_paper_protocol": _preset("the LSTM preset (fine-tuned GloVe 6B 50d)", "lstm_imdb"),
        "skim_paper_protocol": _preset(
            "the Skim-LSTM preset (gamma 0.01, fine-tuned GloVe 6B 50d)", "skim_lstm_imdb", "lstm_paper_protocol"
        ),
        "lstm_corpus_embedding": _run(
            "imdb",
            "the LSTM with a 50d embedding trained on the corpus from a random start (--no-glove) instead of "
            "fine-tuned GloVe: does GloVe 50d cap the result?",
            "imdb_attempt_lstm_no_glove",
            "--cell lstm --units 100 --no-glove",
        ),
        "lstm_dropout_0.3": _run(
            "imdb",
            "the LSTM with dropout 0.3 on its output (--dropout 0.3): the baseline of dropout_0.3",
            "imdb_attempt_lstm_dropout03",
            "--cell lstm --units 100 --dropout 0.3",
        ),
        "dropout_0.3": _run(
            "imdb",
            "the Skim-LSTM (gamma 0.01) with dropout 0.3 on its output (--dropout 0.3), against the overfitting "
            "of the protocol's runs (train accuracy 0.98)",
            "imdb_attempt_skim_lstm_dropout03",
            f"{SKIM} --gamma 0.01 --dropout 0.3",
            "lstm_dropout_0.3",
        ),
    },
)
SETS = {RT: ROTTEN_TOMATOES, "imdb": IMDB}


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", choices=sorted(SETS), required=True, help="the data set whose attempts to evaluate")
    parser.add_argument("names", nargs="*", help="attempts to evaluate (default: all of the data set's)")
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


def load(model, data):
    """(Keras model, {split: (ids, labels)}) for the validation and test splits, as `keras-skim evaluate` reads
    them (the same folder, tokenizer and data lookups)."""
    from keras_skim.cli.model_args import load_text_model, model_record, text_tokenizer
    from keras_skim.datasets.encoded_splits import load_encoded
    from keras_skim.datasets.registry import resolve_data

    folder, config, recorded = model_record(model)
    keras_model = load_text_model(folder, "evaluate")
    tokenizer = text_tokenizer(keras_model, None, folder)
    source = resolve_data(data, split_seed=None, recorded=recorded, labelled=True)
    max_length = keras_model.inputs[0].shape[1] or config.max_length
    splits = {split: load_encoded(source, tokenizer, split, max_length)[:2] for split in ("validation", "test")}
    return keras_model, splits


def measure(model, encoded, threshold):
    """{accuracy, skim_rate, flop_r, threshold} as `keras-skim evaluate --threshold` computes them."""
    from keras_skim.models.text_classifier.text_classifier_commands import evaluation

    result = evaluation(model, *encoded, threshold)
    return {key: result.get(key) for key in ("accuracy", "skim_rate", "flop_r", "threshold")}


def chosen_on_validation(sweep, skim_rate):
    """The validation row whose skim rate is at least `skim_rate` at the best accuracy (lowest threshold on a
    tie), or None."""
    skimming = [row for row in sweep if row["skim_rate"] >= skim_rate]
    return max(skimming, key=lambda row: (row["accuracy"], -row["threshold"])) if skimming else None


def training_command(attempt):
    """The attempt's exact training command: a made preset's card's (the command that trained it), else the
    table's."""
    if not attempt["model"].startswith("runs/"):
        from keras_skim.presets import list_presets

        card = list_presets().get(attempt["model"])
        if card is not None:
            return card.command
    return attempt["command"]


def evaluate_attempt(attempt, data, target):
    """The attempt's validation sweep and its test figures at each threshold chosen on validation."""
    from keras_skim.model_kinds import skim_gate

    started = time.process_time()
    model, splits = load(model_path(attempt), data)
    skims = bool(skim_gate().gated_cells(model))
    thresholds = THRESHOLDS if skims else (None,)
    sweep = [measure(model, splits["validation"], threshold) for threshold in thresholds]
    choices = {"trained": sweep[0]}
    if skims:
        choices["validation_skim_at_target"] = chosen_on_validation(sweep, target.skim_rate)
    test = {
        rule: None if row is None else {"validation": row, "test": measure(model, splits["test"], row["threshold"])}
        for rule, row in choices.items()
    }
    return {"validation_sweep": sweep, "chosen": test, "cpu_seconds": round(time.process_time() - started, 1)}


def verdicts(records, attempt_set):
    """Adds to each skim attempt's chosen rows whether they meet the set's target: against its own baseline
    and against the best test accuracy of any LSTM attempt."""
    attempts, target = attempt_set.attempts, attempt_set.target
    lstm = {name: rec for name, rec in records.items() if attempts[name]["baseline"] is None and "chosen" in rec}
    best = max((rec["chosen"]["trained"]["test"]["accuracy"] for rec in lstm.values()), default=None)
    for name, record in records.items():
        own = lstm.get(attempts[name]["baseline"] or "")
        for row in (record.get("chosen") or {}).values():
            if row is None or attempts[name]["baseline"] is None:
                continue
            base = own["chosen"]["trained"]["test"]["accuracy"] if own else None
            row["meets_target_vs_own_baseline"] = None if base is None else target.met(row["test"], base)
            row["meets_target_vs_best_lstm"] = None if best is None else target.met(row["test"], best)
    return records


def _previous(out):
    path = os.path.join(litert_report.RESULTS, out + ".json")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f).get("attempts", {})


def _row_line(name, rule, row):
    if row is None:
        return f"| {name} | {rule} | no threshold skims the target's rate on validation | | | | |"
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
        f"# {record['title']}: attempts at the Skim-LSTM target (issue 31, item 4)",
        "",
        f"`{record['command']}` (commit {record['commit']}). Target: {record['target']}. Thresholds are chosen "
        "on validation only; the test split is evaluated once per chosen threshold. Verdict: against the "
        f"attempt's own baseline / against the best LSTM. Load average at the end: "
        f"{record['machine']['load_average_at_end']}.",
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


def evaluated(attempt_set, data, names):
    """{name: record} of the set's attempts, in its order: `names` (all when empty) evaluated where their model
    is here, the others as the results file holds them, or as not trained yet."""
    attempts = attempt_set.attempts
    # A recorded attempt keeps its measurements; what it is (changes, model, baseline, command) is the table's.
    records = {
        name: {**rec, **{key: value for key, value in attempts[name].items() if value is not None}}
        for name, rec in _previous(attempt_set.out).items()
        if name in attempts
    }
    for name in names or attempts:
        if available(attempts[name]):
            records[name] = {**attempts[name], **evaluate_attempt(attempts[name], data, attempt_set.target)}
            records[name]["command"] = training_command(attempts[name])
        elif name not in records:
            records[name] = dict(attempts[name])
    return {name: records[name] for name in attempts if name in records}


def main(argv=None):
    args = parse_args(argv)
    attempt_set = SETS[args.data]
    unknown = [name for name in args.names if name not in attempt_set.attempts]
    if unknown:
        known = ", ".join(attempt_set.attempts)
        print(f"skim_attempts: unknown attempt {', '.join(unknown)} on {args.data} (known: {known})", file=sys.stderr)
        return 2
    records = evaluated(attempt_set, args.data, args.names)
    record = {
        **litert_report.header(),
        "title": attempt_set.title,
        "target": attempt_set.target.words(),
        "thresholds": list(THRESHOLDS),
        "attempts": verdicts(records, attempt_set),
    }
    litert_report.write(attempt_set.out, record, markdown(record))
    return 0


if __name__ == "__main__":
    sys.exit(main())
