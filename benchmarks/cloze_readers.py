"""Cloze accuracy and skim rate of `ClozeQA` readers (an LSTM and a skim reader) on a CBT-format set.

    python benchmarks/cloze_readers.py                      # the IMDB set benchmarks/build_cloze_set.py wrote
    python benchmarks/cloze_readers.py --data ~/.cache/keras_skim/data/cloze_austen/v1/austen_cloze_CN_train.txt \
        --max-length 800 --tag austen_cn    # the Austen set (--source austen; its questions: median 774 tokens)
    python benchmarks/cloze_readers.py --data cbtest_CN_train.txt --tag cbt_cn   # CBT itself (users with it)

Each `--cells` value trains one `ClozeQA` (`keras_skim.models.cloze_qa.cloze_training.train_cloze`, the code
behind `keras-skim train --task cloze`) and is evaluated on the test file; the rows go to
``benchmarks/results/cloze_<tag>.{json,md}`` after each reader, with the machine, the versions and the
command, so a run stopped part way still says where it stands. The Skim-RNN paper's Table 5 reports these
readers on CBT-CN and CBT-NE (d = 200); the sets built here come from IMDB reviews or Jane Austen's novels
(`build_cloze_set.py --source`), not CBT's children's books, so their figures are not the paper's.

Every reader is resumable: each `--cells` value keeps a checkpoint under `--models` (``<tag>_<cell>_checkpoint``,
written at each epoch's end, or every `--steps-per-epoch` batches, or at each validation for sj-lstm), and
rerunning the same command continues from it;
a reader already finished is trained no more (its checkpoint says it stopped) and only evaluated.

`--cells sj-lstm` trains the Structural-Jump-LSTM reader instead (`StructuralJumpClozeQA`, the code behind
`keras-skim train --task cloze --model sj-lstm`: LSTM 128, RMSprop 0.001, GloVe 50d fixed, the family's
"default" schedule in steps). Rows of readers not run this time are kept from the report already written.
"""

import argparse
import dataclasses
import json
import os
import pathlib
import platform
import shlex
import sys

from keras_skim.datasets.cache import cache_root
from keras_skim.models.cloze_qa.cloze_training import ClozeTrainingConfig, train_cloze

RESULTS = pathlib.Path(__file__).resolve().parent / "results"
# The papers' CBT figures, to read beside a set's rows (the sets built here are not CBT). Structural-Jump
# (Hansen et al., ICLR 2019): Table 2, test accuracy of its LSTM and of the speed reader, and the speed
# reader's read fraction; Table 3, the Skim-LSTM's (Seo et al., ICLR 2018) accuracy change and FLOP-r as it
# quotes them.
PAPER = {
    "CN": "CBT-CN: LSTM 0.515, Structural-Jump-LSTM 0.522 reading 32.6% (Hansen et al. 2019, Table 2); "
    "Skim-LSTM accuracy change 0.014 at FLOP-r 1.8x (Table 3)",
    "NE": "CBT-NE: LSTM 0.453, Structural-Jump-LSTM 0.463 reading 31.3% (Hansen et al. 2019, Table 2); "
    "Skim-LSTM accuracy change 0.024 at FLOP-r 3.6x (Table 3)",
}
DEFAULT_DATA = cache_root() / "data" / "cloze_imdb" / "v1" / "imdb_cloze_CN_train.txt"


def versions():
    import keras
    import numpy

    found = {"python": platform.python_version(), "keras": keras.__version__, "numpy": numpy.__version__}
    try:
        import tensorflow

        found["tensorflow"] = tensorflow.__version__
    except ImportError:
        pass
    return found


def _row_line(row):
    test = row["test"]
    if "read_fraction" not in test:  # a skim reader or the LSTM: every token through the big or small cell
        return f"| {row['cell']} | {test['accuracy']:.4f} | {test['skim_rate']:.3f} | - | {row['epochs_run']} epochs |"
    fractions = f"{test['read_fraction']:.1%} / {test['skip_fraction']:.1%} / {test['jump_fraction']:.1%}"
    return f"| {row['cell']} | {test['accuracy']:.4f} | - | {fractions} | {row['steps_run']} steps |"


def write_report(path, record):
    path.with_suffix(".json").write_text(json.dumps(record, indent=2, default=float) + "\n", encoding="utf-8")
    rows = "\n".join(f"{_row_line(row)} {row['seconds']:.0f} |" for row in record["rows"])
    notes = "".join(f"\n{row['note']}\n" for row in record["rows"] if row.get("note"))
    if record.get("paper"):
        notes += f"\nThe papers, on the Children's Book Test (not this set): {record['paper']}.\n"
    pending = ", ".join(record["pending"]) or "none"
    path.with_suffix(".md").write_text(
        f"# Cloze readers on {record['data']}\n\n"
        f"Written by `{record['command']}` ({record['machine']}; {record['versions']}).\n"
        f"Questions: {record['questions']}. Readers still to run: {pending}.\n\n"
        "| reader | test accuracy | skim rate | read / skip / jump (document words) | trained | seconds |\n"
        "|---|---|---|---|---|---|\n" + rows + "\n" + notes,
        encoding="utf-8",
    )


def structural_jump_row(args):
    """Trains (or resumes) the Structural-Jump-LSTM reader; its report row and the questions per split."""
    from keras_skim.models.structural_jump.structural_jump_cloze_training import (
        StructuralJumpClozeConfig,
        train_structural_jump_cloze,
    )
    from keras_skim.models.structural_jump.structural_jump_schedule import StructuralJumpSchedule

    schedule = None
    if args.sj_steps:  # the "default" preset, shorter: delta decays, and selection starts, half way through phase 2
        full, speed = args.sj_steps
        lengths = {"entropy_decay_steps": speed // 2, "selection_start_steps": speed // 2}
        schedule = StructuralJumpSchedule.preset("default", full_read_steps=full, speed_read_steps=speed, **lengths)
    config = StructuralJumpClozeConfig(limit=args.limit, max_length=args.max_length, schedule=schedule)
    output = args.models / f"{args.tag}_sj-lstm"
    run_dir = args.models / f"{args.tag}_sj-lstm_checkpoint"
    results = train_structural_jump_cloze(args.data, config, output, run_dir=run_dir, resume=True, verbose=1)
    phases = results["phases"]
    full_read = phases["full_read"]["evaluation"]["test"]["accuracy"]
    row = {
        "cell": "sj-lstm",
        "command": "python benchmarks/cloze_readers.py " + shlex.join(sys.argv[1:]),
        "config": results["config"],
        "seconds": sum(phases[name]["seconds"] for name in ("full_read", "speed_read") if name in phases),
        "steps_run": sum(phases[name]["steps_run"] for name in ("full_read", "speed_read") if name in phases),
        "test": results["test"],
        "full_read_test_accuracy": full_read,
        "speed_reading": phases["speed_read"].get("speed_reading"),
        "note": f"sj-lstm: its own full reader (phase 1's kept weights) has test accuracy {full_read:.4f}; "
        f"phase 2 kept: {phases['speed_read'].get('speed_reading', {}).get('kept')} "
        f"({phases['speed_read'].get('speed_reading', {}).get('why')}).",
    }
    return row, results["questions"]


def reader_row(args, cell):
    """Trains (or resumes) a `ClozeQA` reader of `cell`; its report row and the questions per split."""
    config = ClozeTrainingConfig(
        cell=cell,
        units=args.units,
        small_units=args.small_units,
        gamma=args.gamma,
        epochs=args.epochs,
        limit=args.limit,
        max_length=args.max_length,
        steps_per_epoch=args.steps_per_epoch,
    )
    # Checkpointed at each epoch's end (each --steps-per-epoch slice): rerunning the same command resumes
    # from the last one finished.
    run_dir = args.models / f"{args.tag}_{cell}_checkpoint"
    results = train_cloze(args.data, config, args.models / f"{args.tag}_{cell}", 2, run_dir, resume=True)
    row = {"cell": cell, "config": dataclasses.asdict(config), "seconds": results["train_seconds"]}
    row["command"] = "python benchmarks/cloze_readers.py " + shlex.join(sys.argv[1:])
    return {**row, "test": results["test"], "epochs_run": results["epochs_run"]}, results["questions"]


def add_row(report, record, row, questions):
    """Adds `row` to the report and writes it, keeping the rows other runs wrote there meanwhile (readers
    not run by this command, which may be training in another process with the same `--tag`)."""
    record["rows"] = [earlier for earlier in record["rows"] if earlier["cell"] != row["cell"]] + [row]
    record["questions"] = questions
    if report.with_suffix(".json").is_file():
        written = json.loads(report.with_suffix(".json").read_text(encoding="utf-8"))
        ours = {entry["cell"] for entry in record["rows"]} | set(record["pending"])
        kept = [entry for entry in written["rows"] if entry["cell"] not in ours]
        record = {**record, "rows": kept + record["rows"]}
        record["pending"] = record["pending"] + [cell for cell in written["pending"] if cell not in ours]
    write_report(report, record)


def paper_for(data):
    """The papers' CBT figures of the kind (CN or NE) the cloze file `data` holds, or None."""
    kind = next((kind for kind in PAPER if f"_{kind}_" in pathlib.Path(data).name), None)
    return PAPER.get(kind)


def main(argv=None):
    from keras_skim.training.run_checkpoint import TrainingInterrupted

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=pathlib.Path, default=DEFAULT_DATA)
    parser.add_argument("--cells", nargs="+", default=["lstm", "skim-lstm"])
    parser.add_argument("--units", type=int, default=200)
    parser.add_argument("--small-units", type=int, default=10)
    parser.add_argument("--gamma", type=float, default=0.01)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--max-length", type=int, default=600)
    parser.add_argument(
        "--steps-per-epoch",
        type=int,
        default=None,
        help="lstm/skim-lstm: checkpoint and validate every N batches (an epoch of fit is a slice of a pass; "
        "--epochs still counts passes); default: once a pass",
    )
    parser.add_argument("--tag", default="imdb_cn")
    parser.add_argument(
        "--sj-steps", type=int, nargs=2, metavar=("FULL", "SPEED"), help="sj-lstm: phase lengths (default 2000 3000)"
    )
    parser.add_argument("--models", type=pathlib.Path, default=cache_root() / "runs" / "cloze")
    args = parser.parse_args(argv)
    report = RESULTS / f"cloze_{args.tag}"
    record = {
        "data": str(args.data),
        "command": "python benchmarks/cloze_readers.py " + shlex.join(sys.argv[1:] if argv is None else argv),
        "machine": f"{platform.platform()}, {os.cpu_count()} CPUs shared with other jobs",
        "versions": versions(),
        "questions": None,
        "rows": [],
        "pending": list(args.cells),
        "paper": paper_for(args.data),
    }
    for cell in args.cells:
        try:
            row, questions = structural_jump_row(args) if cell == "sj-lstm" else reader_row(args, cell)
        except TrainingInterrupted as err:  # SIGINT/SIGTERM: the checkpoint is written; one line, no traceback
            print(f"cloze_readers: {err}; run the same command to resume", file=sys.stderr)
            return 130
        record["pending"].remove(cell)
        add_row(report, record, row, questions)
        print(f"{cell}: {row['test']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
