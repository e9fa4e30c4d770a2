"""The committed benchmark reports and the scripts under benchmarks/ that write them (the
commands of the README's "Reproduce" line), plus the desktop run of the app's own models.

Groups: "speed" (LiteRT latency of exports of random-weight models: no data set, no training),
"trained" (trains on IMDB or Rotten Tomatoes first, so it needs the data and takes long),
"app" (`keras-skim bench` on the assets that `build_release.py assets` wrote: the same models
and texts as the app's Benchmark button, timed on this machine).
"""

import csv
import dataclasses
import json
import os
import subprocess
import sys

from export.release_assets import DEFAULT_OUTPUT, ROOT, ReleaseError, _python_env


@dataclasses.dataclass(frozen=True)
class Report:
    name: str
    group: str
    command: tuple
    writes: tuple
    note: str = ""


APP_TEXTS = os.path.join("export", "build", "app_bench_texts.tsv")


def _py(script, *args):
    return ("python", f"benchmarks/{script}", *args)


SJ_IMDB = (
    "sj_reproduction.py",
    "--data",
    "imdb",
    "--optimizer",
    "adam",
    "--learning-rate",
    "1e-3",
    "--speed-optimizer",
    "rmsprop_tf1",
    "--full-read-epochs",
    "5",
    "--lstm-epochs",
    "6",
    "--speed-read-epochs",
    "10",
    "--rolling-weight",
    "0.15",
    "--critic-warmup-steps",
    "200",
    "--tag",
    "w015_warmup_reward",
)

REPORTS = (
    Report(
        "custom_op_speed",
        "speed",
        _py("custom_op_speed.py", "--runs", "60", "--cpu", "1"),
        ("benchmarks/results/custom_op_speed.json", "benchmarks/results/custom_op_speed.md"),
    ),
    Report(
        "export_speed",
        "speed",
        _py("export_speed.py"),
        ("benchmarks/results/export_speed.json", "benchmarks/results/export_speed.md"),
    ),
    Report(
        "scornn_export_speed",
        "speed",
        _py("scornn_export_speed.py"),
        ("benchmarks/results/scornn_export_speed.json", "benchmarks/results/scornn_export_speed.md"),
    ),
    Report(
        "long_text_speed",
        "speed",
        _py("long_text_speed.py", "--repeats", "7"),
        ("benchmarks/results/long_text_speed.json", "benchmarks/results/long_text_speed.md"),
    ),
    Report(
        "trained_export_speed",
        "trained",
        ("bash", "benchmarks/trained_export_speed.sh"),
        ("benchmarks/results/trained_export_speed.json", "benchmarks/results/trained_export_speed.md"),
        "trains a Rotten Tomatoes and an IMDB Skim-LSTM first",
    ),
    Report(
        "skim_reproduction_rotten_tomatoes",
        "trained",
        _py("skim_reproduction.py", "--data", "rotten_tomatoes", "--epochs", "6"),
        (
            "benchmarks/results/skim_reproduction_rotten_tomatoes.json",
            "benchmarks/results/skim_reproduction_rotten_tomatoes.md",
        ),
        "trains five models",
    ),
    Report(
        "skim_reproduction_imdb",
        "trained",
        _py("skim_reproduction.py", "--data", "imdb", "--epochs", "4", "--limit", "6000", "--max-length", "200"),
        ("benchmarks/results/skim_reproduction_imdb.json", "benchmarks/results/skim_reproduction_imdb.md"),
        "trains five models",
    ),
    Report(
        "skim_reproduction_imdb_full",
        "trained",
        _py(
            "skim_reproduction.py",
            "--data",
            "imdb",
            "--epochs",
            "4",
            "--max-length",
            "400",
            "--configs",
            "lstm,skim-lstm:10:0.01",
            "--name",
            "skim_reproduction_imdb_full",
        ),
        (
            "benchmarks/results/skim_reproduction_imdb_full.json",
            "benchmarks/results/skim_reproduction_imdb_full.md",
        ),
        "IMDB at the paper's scale: an LSTM and a Skim-LSTM, about 40 minutes on 2 cores",
    ),
    Report(
        "sj_reproduction_rotten_tomatoes",
        "trained",
        _py(
            "sj_reproduction.py",
            "--data",
            "rotten_tomatoes",
            "--read-budget",
            "0.6",
            "--critic-warmup-steps",
            "300",
            "--tag",
            "warmup_budget60",
        ),
        (
            "benchmarks/results/sj_reproduction_rotten_tomatoes_warmup_budget60.json",
            "benchmarks/results/sj_reproduction_rotten_tomatoes_warmup_budget60.md",
        ),
        "an LSTM and a Structural-Jump-LSTM (10 + 30 epochs), about an hour on 2 cores",
    ),
    Report(
        "sj_reproduction_imdb",
        "trained",
        _py(*SJ_IMDB),
        (
            "benchmarks/results/sj_reproduction_imdb_w015_warmup_reward.json",
            "benchmarks/results/sj_reproduction_imdb_w015_warmup_reward.md",
        ),
        "an LSTM (6 epochs) and a Structural-Jump-LSTM (5 + 10 epochs) on all of IMDB, 2-3 hours on 2 cores",
    ),
    Report(
        "sj_export_speed",
        "trained",
        _py(
            "sj_export_speed.py",
            "--model",
            "benchmarks/models/imdb/sj_lstm_w015_warmup_reward",
            "--data",
            "imdb",
            "--cpu",
            "1",
        ),
        ("benchmarks/results/sj_export_speed.json", "benchmarks/results/sj_export_speed.md"),
        "needs the model sj_reproduction_imdb trains",
    ),
    Report(
        "sj_authors_schedule_imdb",
        "trained",
        _py("sj_authors_schedule.py", "--data", "imdb", "--resume"),
        ("benchmarks/results/sj_authors_schedule_imdb.json", "benchmarks/results/sj_authors_schedule_imdb.md"),
        "the authors' step schedule on all of IMDB: about 5-6 hours on 2 cores, resumable (stop it, rerun the same)",
    ),
    Report(
        "sj_export_speed_authors_imdb",
        "trained",
        _py(
            "sj_export_speed.py",
            "--model",
            "benchmarks/models/imdb/sj_authors_schedule_imdb",
            "--data",
            "imdb",
            "--out",
            "benchmarks/results/sj_export_speed_authors_imdb",
            "--cpu",
            "1",
        ),
        (
            "benchmarks/results/sj_export_speed_authors_imdb.json",
            "benchmarks/results/sj_export_speed_authors_imdb.md",
        ),
        "needs the model sj_authors_schedule_imdb trains",
    ),
    Report(
        "app_models_speed",
        "app",
        (
            "keras-skim",
            "bench",
            "<assets>/<default model>",
            "--baseline",
            "<assets>/<baseline>",
            "--data",
            APP_TEXTS,
            "--split",
            "all",
            "--samples",
            "<all texts>",
            "--repeats",
            "5",
            "-o",
            "benchmarks/results/app_models_speed",
            "--force",
        ),
        ("benchmarks/results/app_models_speed/",),
        "needs `build_release.py assets` first",
    ),
)
GROUPS = ("speed", "trained", "app")


def select(names=(), groups=("speed",)):
    """The reports named, else those of the groups, in REPORTS order."""
    known = {r.name for r in REPORTS}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ReleaseError(f"unknown report {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    if names:
        return [r for r in REPORTS if r.name in names]
    return [r for r in REPORTS if r.group in groups]


def _app_command(report, assets, texts_file):
    """The app_models_speed command with the assets' paths filled in; writes its TSV of texts."""
    catalog_path = os.path.join(assets, "catalog.json")
    if not os.path.isfile(catalog_path):
        raise ReleaseError(f"{catalog_path}: no app assets (run `python export/build_release.py assets` first)")
    with open(catalog_path, encoding="utf-8") as f:
        catalog = json.load(f)
    with open(os.path.join(assets, catalog["bench_texts"]), encoding="utf-8") as f:
        texts = json.load(f)
    if catalog.get("baseline") is None:
        raise ReleaseError(f"{catalog_path}: the assets have no LSTM baseline to compare with")
    tsv = os.path.join(ROOT, texts_file)
    os.makedirs(os.path.dirname(tsv), exist_ok=True)
    with open(tsv, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, delimiter="\t")
        writer.writerow(["text", "label"] if texts["labels"] is not None else ["text"])
        for i, text in enumerate(texts["texts"]):
            writer.writerow([text, texts["labels"][i]] if texts["labels"] is not None else [text])
    folder = {m["id"]: os.path.dirname(m["model"]) for m in catalog["models"]}
    filled = []
    for part in report.command:
        if part == "<assets>/<default model>":
            part = os.path.join(assets, folder[catalog["default_model"]])
        elif part == "<assets>/<baseline>":
            part = os.path.join(assets, folder[catalog["baseline"]])
        elif part == APP_TEXTS:
            part = texts_file
        elif part == "<all texts>":
            part = str(len(texts["texts"]))
        filled.append(part)
    return tuple(filled)


def command_line(report, assets=DEFAULT_OUTPUT, texts_file=APP_TEXTS):
    """The argv that regenerates a report, run from the checkout's root (`texts_file`: where the
    app report's TSV of benchmark texts goes, relative to it or absolute)."""
    command = _app_command(report, assets, texts_file) if report.group == "app" else report.command
    if command[0] == "python":
        return [sys.executable, *command[1:]]
    if command[0] == "keras-skim":
        return [sys.executable, "-m", "keras_skim", *command[1:]]
    return list(command)


def run(reports, *, assets=DEFAULT_OUTPUT, dry_run=False, log=print):
    """Runs each report's script from the checkout's root, one after the other; stops at the first failure."""
    for report in reports:
        note = "; " + report.note if report.note else ""
        log(f"== {report.name} ({report.group}{note}) -> {', '.join(report.writes)}")
        if dry_run:
            log("$ " + " ".join(report.command))
            continue
        argv = command_line(report, assets)
        log("$ " + " ".join(argv))
        done = subprocess.run(argv, cwd=ROOT, env=_python_env())
        if done.returncode != 0:
            raise ReleaseError(f"{report.name} failed (exit {done.returncode}): {' '.join(argv)}")
