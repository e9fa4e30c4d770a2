"""Replays phase 2's selection rules on the committed Structural-Jump-LSTM histories.

Every result of `sj_authors_schedule.py` holds its validation history; this
asks which validation each rule (`keras_skim.models.structural_jump.structural_jump_selection`)
would have kept, from the run's own selection start on. Patience is left
out: a rule that keeps other points could have stopped the run at another
step, so a replay sees only the steps the run took. No training; seconds.

    python benchmarks/sj_selection_replay.py
"""

import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
# The runs replayed: the default schedule on the slice and the whole set, and
# the authors' schedule (a run whose reward-best point met the issue's target).
PATTERNS = ("sj_default_schedule_rotten_tomatoes_*.json", "sj_authors_schedule_rotten_tomatoes.json")
RULES = (
    ("best reward (authors)", {}),
    ("floor 0.5 SE", {"standard_errors": 0.5}),
    ("floor 1 SE", {"standard_errors": 1.0}),
    # A less biased reference than the best of ~20 noisy validations.
    ("floor 1 SE, top-3 mean", {"standard_errors": 1.0, "top": 3}),
    ("floor 2 SE", {"standard_errors": 2.0}),
    ("read budget 0.6", {"read_budget": 0.6}),
    # The default schedule's promise (issue 35): within one point of the full reader, else the full reader.
    ("within 1 point, else full reader", {"points": 0.01, "fallback": True}),
)
# The reading cost control against a fixed w on the same data and seed (runs that differ in nothing else
# the replay can see): which one finds a speed-read point within one point of the full reader.
CONTROL_PAIRS = (
    ("whole set, seed 0", "default_w015_floor", ("w01_control15", "w01_control125")),
    ("2k slice, seed 0", "limit2000_w015_floor", ("limit2000_w01_control15", "limit2000_w01_control125")),
    ("2k slice, seed 1", "limit2000_seed1", ("limit2000_seed1_w01_control15",)),
    ("2k slice, seed 2", "limit2000_seed2", ("limit2000_seed2_w01_control15",)),
)
PROMISE = "within 1 point, else full reader"


KEPT_FIELDS = ("step", "accuracy", "read_fraction", "skip_fraction", "jump_fraction", "reward")


def replay_run(path):
    from keras_skim.models.structural_jump.structural_jump_selection import accuracy_floor, replay_selection

    with open(path) as f:
        report = json.load(f)
    records = [r for r in report["history"] if r["phase"] == "speed_read"]
    reference = report["full_read"]["validation_accuracy"]
    full_read = sorted((r["accuracy"] for r in report["history"] if r["phase"] == "full_read"), reverse=True)
    examples = report["validation"]["examples"]
    start = report["schedule"].get("selection_start_steps", 0)
    picks = {}
    for name, rule in RULES:
        floor = None
        if "standard_errors" in rule:
            base = sum(full_read[: rule["top"]]) / rule["top"] if "top" in rule else reference
            floor = accuracy_floor(base, examples, rule["standard_errors"])
        if "points" in rule:
            floor = round(reference - rule["points"], 12)  # as training rounds it
        kept = replay_selection(records, floor=floor, read_budget=rule.get("read_budget"), start_step=start)
        if rule.get("fallback") and kept["accuracy"] < floor:
            kept = {"step": "full reader", "accuracy": reference, "read_fraction": 1.0}
        picks[name] = {"floor": floor, **{k: kept.get(k) for k in KEPT_FIELDS}}
    return {
        "result": os.path.basename(path),
        "rolling_weight": report["arguments"]["rolling_weight"],
        "reading_cost_control": report["schedule"].get("rolling_weight_factor"),
        "train_examples": report["train_examples"],
        "validation_examples": examples,
        "full_read_validation_accuracy": reference,
        "selection_start_steps": start,
        "speed_read_steps_run": report["speed_read"]["steps_run"],
        "kept_in_the_run": report["speed_read"]["selected_step"],
        "test_of_the_kept": {k: report["test"][k] for k in ("accuracy", "read_fraction")},
        "picks": picks,
    }


def markdown(rows):
    lines = [
        "# Phase-2 selection rules replayed on the committed histories",
        "",
        "Command: `python benchmarks/sj_selection_replay.py` (no training: each run's validation history). "
        "Floor k SE: the least-read validation with accuracy >= the full-read phase's best validation accuracy "
        "less k standard errors sqrt(a(1-a)/n) (else the most accurate; 'top-3 mean': the mean of its three best "
        "validation accuracies instead of the best); read budget: the most accurate "
        "validation reading <= 60% (else the best reward). Each cell: step, validation accuracy @ read fraction. "
        "Patience is left out, so a replay sees only the steps the run took.",
        "",
        "| run | w | train docs | full-read best val | kept in the run (test) | "
        + " | ".join(name for name, _ in RULES)
        + " |",
        "|---|---:|---:|---:|---|" + "---|" * len(RULES),
    ]
    for row in rows:
        test = row["test_of_the_kept"]
        cells = []
        for name, _ in RULES:
            p = row["picks"][name]
            cells.append(f"{p['step']}: {p['accuracy']:.3f} @ {100 * p['read_fraction']:.1f}%")
        lines.append(
            f"| {row['result'].removesuffix('.json')} | {row['rolling_weight']:g} | {row['train_examples']} | "
            f"{row['full_read_validation_accuracy']:.3f} (n={row['validation_examples']}) | "
            f"{row['kept_in_the_run']} ({test['accuracy']:.3f} @ {100 * test['read_fraction']:.1f}%) | "
            + " | ".join(cells)
            + " |"
        )
    return "\n".join(lines + [""] + control_table(rows)) + "\n"


def control_table(rows):
    """The promise's pick on fixed-w runs beside the reading cost control's, per data set and seed."""
    by_name = {
        row["result"].removesuffix(".json").removeprefix("sj_default_schedule_rotten_tomatoes_"): row for row in rows
    }
    lines = [
        "## The reading cost control under the default's promise",
        "",
        f"Rule: {PROMISE} (the least-read validation from the selection start on within 0.01 of the full-read "
        "phase's best validation accuracy, else the full reader at 100% read). Fixed: w = 0.15 (the default "
        "before issue 35); control: w from 0.1, one rung of x1.5 (or x1.25) up after a validation at or above the "
        "floor, one down below it (those runs steered by a 1-standard-error floor). Each cell: validation "
        "accuracy @ read fraction.",
        "",
        "| data | full reader | fixed w 0.15 | control x1.5 | control x1.25 |",
        "|---|---:|---|---|---|",
    ]
    reads = {"fixed": [], "control x1.5": []}
    for label, fixed, controls in CONTROL_PAIRS:
        cells, row = [], by_name[fixed]
        for name in (fixed, *controls, None)[:3]:
            if name is None or name not in by_name:
                cells.append("-")
                continue
            pick = by_name[name]["picks"][PROMISE]
            kept = "full reader" if pick["step"] == "full reader" else f"step {pick['step']}"
            cells.append(f"{kept}: {pick['accuracy']:.3f} @ {100 * pick['read_fraction']:.1f}%")
        reads["fixed"].append(by_name[fixed]["picks"][PROMISE]["read_fraction"])
        reads["control x1.5"].append(by_name[controls[0]]["picks"][PROMISE]["read_fraction"])
        lines.append(f"| {label} | {row['full_read_validation_accuracy']:.3f} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Mean read fraction kept over the four: "
        + ", ".join(f"{name} {100 * sum(v) / len(v):.1f}%" for name, v in reads.items())
        + ". The default schedule runs the control (x1.5 from w 0.1) with the full-reader fallback.",
    ]
    return lines


def main():
    sys.path.insert(0, os.path.dirname(HERE))
    import litert_report

    paths = sorted(p for pattern in PATTERNS for p in glob.glob(os.path.join(RESULTS, pattern)))
    paths = [p for p in paths if not p.endswith("_progress.json")]
    rows = [replay_run(p) for p in paths]
    report = {"command": litert_report.command(), "rules": [name for name, _ in RULES], "runs": rows}
    litert_report.write_files(os.path.join(RESULTS, "sj_selection_replay"), report, markdown(rows))
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
