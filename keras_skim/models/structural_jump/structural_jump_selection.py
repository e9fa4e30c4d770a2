"""Which speed-read validation Structural-Jump-LSTM's phase 2 keeps.

Three rules, as sort keys (the largest key is kept):

- the authors' rule: the best validation reward;
- a read budget: the most accurate validation reading at most a given
  fraction (else the best reward);
- an accuracy floor: the validation that reads the least among those whose
  accuracy is at least the full-read phase's best validation accuracy less
  `standard_errors` standard errors of that accuracy on the validation set,
  sqrt(a (1 - a) / n); else (none reaches it) the most accurate one.

Why the floor: the reward mixes accuracy and reading costs with the rolling
weight, and which weight trades them well depends on the data. On 2,000
Rotten Tomatoes documents the paper's 0.1 kept the reading-all policy and
0.15 speed read, while on the whole set 0.15 made the reward-best
validation one that jumps over most of the words, far below the full-read
model's accuracy (benchmarks/results/sj_default_schedule_rotten_tomatoes_*.md). The
floor asks instead what the paper's tables ask: read as little as possible
while as accurate as the model reading everything; one standard error is
the difference the validation set cannot tell from noise (0.020 on 500
documents, 0.012 on 1,275).

Example:

>>> from keras_skim.models.structural_jump.structural_jump_selection import accuracy_floor, replay_selection
>>> round(accuracy_floor(0.706, 500, 1.0), 4)
0.6856
>>> history = [
...     {"step": 100, "accuracy": 0.70, "read_fraction": 0.95, "reward": 0.60},
...     {"step": 200, "accuracy": 0.73, "read_fraction": 0.47, "reward": 0.69},
...     {"step": 300, "accuracy": 0.62, "read_fraction": 0.15, "reward": 0.70},
... ]
>>> replay_selection(history, floor=0.6856)["step"], replay_selection(history)["step"]
(200, 300)
"""

import math


def accuracy_floor(full_read_accuracy, validation_examples, standard_errors):
    """The full-read phase's best validation accuracy less `standard_errors` of its standard errors."""
    if validation_examples < 1:
        raise ValueError(f"validation_examples must be >= 1. Received: {validation_examples!r}")
    p = full_read_accuracy
    return p - standard_errors * math.sqrt(p * (1.0 - p) / validation_examples)


def speed_read_key(record, floor=None, read_budget=None):
    """The sort key of a speed-read validation record (larger is better).

    `read_budget` (if set) wins over `floor`; with neither, the reward.
    The reward and budget keys are those of runs before the floor existed
    (a resumed run compares against the key its checkpoint holds).
    """
    if read_budget is not None:
        fits = record["read_fraction"] <= read_budget
        return (int(fits), record["accuracy"] if fits else record["reward"])
    if floor is not None:
        if record["accuracy"] >= floor:
            # Ties in reading go to the more accurate one.
            return (1, -record["read_fraction"], record["accuracy"])
        return (0, record["accuracy"], -record["read_fraction"])
    return (1, record["reward"])


def floor_words(points=None, standard_errors=None):
    """How far under the full reader's best validation accuracy a floor is, in words."""
    if points is not None:
        return f"{100 * points:g} point{'' if points == 0.01 else 's'}"
    return f"{standard_errors:g} standard error(s)"


def describe_selection(floor_standard_errors=None, read_budget=None, floor_points=None):
    """The words the reports use for a rule."""
    if read_budget is not None:
        return f"best validation accuracy with read fraction <= {read_budget} (else best reward)"
    if floor_points is not None:
        return f"least read with validation accuracy >= the full-read best less {floor_words(floor_points)}"
    if floor_standard_errors is not None:
        return (
            "least read with validation accuracy >= the full-read best less "
            f"{floor_standard_errors:g} standard error(s) (else most accurate)"
        )
    return "best validation reward"


def replay_selection(records, floor=None, read_budget=None, start_step=0):
    """The record the rule keeps among `records` from `start_step` on (patience left out), or None.

    The first of equal keys is kept, as in training (a later one must be better).
    """
    best, best_key = None, None
    for record in records:
        if record["step"] < start_step:
            continue
        key = speed_read_key(record, floor=floor, read_budget=read_budget)
        if best_key is None or key > best_key:
            best, best_key = record, key
    return best


def speed_reading_record(full_reader_accuracy, kept_validation, kept, why):
    """What `train_config.json` records of the kept model against the full reader, and its one line.

    Args:
        full_reader_accuracy: the full-read phase's best validation
            accuracy (None: no full-read phase ran).
        kept_validation: the kept model's greedy validation scores
            (`accuracy`, `read_fraction`).
        kept: "speed-read" or "full-reader".
        why: the reason, in words.

    Returns:
        dict: `kept`, `why`, `validation` (the kept model's accuracy and
        read fraction), `full_reader` (accuracy, read fraction 1.0) and
        `line`, what `keras-skim train` prints.

    Example:

    >>> record = speed_reading_record(0.706, {"accuracy": 0.702, "read_fraction": 0.584}, "speed-read", "w")
    >>> record["line"]
    'speed reading kept: validation accuracy 0.7020 at 58.4% read; full reader 0.7060 at 100% read (-0.4 points; w)'
    """
    accuracy, read = float(kept_validation["accuracy"]), float(kept_validation["read_fraction"])
    record = {
        "kept": kept,
        "why": why,
        "validation": {"accuracy": accuracy, "read_fraction": read},
        "full_reader": None,
    }
    head = "speed reading kept" if kept == "speed-read" else "full reader kept"
    line = f"{head}: validation accuracy {accuracy:.4f} at {read:.1%} read"
    if full_reader_accuracy is not None:
        record["full_reader"] = {"accuracy": float(full_reader_accuracy), "read_fraction": 1.0}
        points = 100 * (accuracy - full_reader_accuracy)
        line += f"; full reader {full_reader_accuracy:.4f} at 100% read ({points:+.1f} points; {why})"
    else:
        line += f" ({why})"
    record["line"] = line
    return record
