"""Accuracy against skim rate and against Flop-R (the FLOP speed-up) of a
trained model, with the LSTM of the same data as the reference: the
trade-off a user picks a threshold (or a training setting) from.

Two sources, one plot format. Writes <out>.json, <out>.md (machine,
versions, command, the numbers) and <out>.png.

`exports`: measures export folders in LiteRT as `keras-skim bench` runs
them (runtime only, no TensorFlow). A Skim-LSTM / Skim-GRU export is swept
over thresholds 0 ... 1; a Structural-Jump-LSTM export is one point (its
agents act greedily: no threshold applies); the LSTM export reads every
token and is the reference line.

    python benchmarks/tradeoff_plot.py exports \\
        --model android_demo/app/src/main/assets/keras_skim/skim_lstm_custom \\
        --model android_demo/app/src/main/assets/keras_skim/structural_jump_lstm_custom \\
        --baseline android_demo/app/src/main/assets/keras_skim/lstm_builtin \\
        --data rotten_tomatoes --samples 1276 --out benchmarks/results/tradeoff_demo_rotten_tomatoes

`results`: draws what committed benchmark results measured when the models
were trained (their weights are not committed): the Skim-RNN
reproductions' validation threshold sweeps and test points
(`skim_reproduction_*.json`), and the Structural-Jump-LSTM runs' test
points (`sj_reproduction_*.json`, `sj_authors_schedule_*.json`), each
against the LSTM row of its own file.

    python benchmarks/tradeoff_plot.py results \\
        --results benchmarks/results/skim_reproduction_rotten_tomatoes.json \\
        --out benchmarks/results/tradeoff_skim_rotten_tomatoes
"""

import argparse
import json
import os
import platform
import shlex
import sys

import numpy as np

THRESHOLDS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


# ------------------------------------------------------------------ exports
def predictions(runner, texts, threshold):
    """(predicted class per text, read mask per text) over `texts`."""
    from keras_skim.runtime.runner import probabilities_from_logits

    predicted, masks = [], []
    for text in texts:
        ids, tokens = runner.encode(text)
        out = runner.run_ids(ids, threshold)
        probabilities = probabilities_from_logits(out["logits"], runner.metadata.output_activation)
        probabilities = np.asarray(probabilities).reshape(-1)
        predicted.append(int(probabilities[0] >= 0.5) if probabilities.size == 1 else int(np.argmax(probabilities)))
        masks.append(np.asarray(out["read_mask"]).reshape(-1)[: len(tokens)])
    return np.asarray(predicted), masks


def skim_point(runner, texts, labels, threshold):
    """Accuracy, skim rate (tokens not read by the big cell) and Flop-R of a skim export."""
    from keras_skim.runtime.bench import flop_r

    predicted, masks = predictions(runner, texts, threshold)
    read = sum(int(np.sum(m == 1)) for m in masks)
    seen = sum(len(m) for m in masks)
    skim_rate = 1.0 - read / max(seen, 1)
    return {
        "threshold": threshold,
        "accuracy": float(np.mean(predicted == labels)),
        "skim_rate": skim_rate,
        "flop_r": flop_r(runner.metadata, skim_rate),
    }


def jump_point(runner, texts, labels):
    """Accuracy, skim rate (words skipped or jumped over) and Flop-R of a jump export."""
    from keras_skim.runtime.bench import jump_counts, jump_summary

    predicted, masks = predictions(runner, texts, None)
    counts = [jump_counts(m) for m in masks]
    read = [int(np.sum(m == 1)) for m in masks]
    summary = jump_summary(runner.metadata, [w for w, _ in counts], [v for _, v in counts], read)
    return {
        "threshold": None,
        "accuracy": float(np.mean(predicted == labels)),
        "skim_rate": 1.0 - summary["read_fraction"],
        "skip_fraction": summary["skip_fraction"],
        "jump_fraction": summary["jump_fraction"],
        "flop_r": summary["flop_r"],
    }


def measure_exports(args):
    from keras_skim.runtime.bench import jumps
    from keras_skim.runtime.bench_data import load_bench_texts
    from keras_skim.runtime.interpreter_loader import runtime_versions
    from keras_skim.runtime.runner import SkimRunner

    baseline = SkimRunner(args.baseline)
    texts, labels, description = load_bench_texts(args.data, args.samples, num_classes=baseline.metadata.num_classes)
    labels = np.asarray(labels)
    predicted, _ = predictions(baseline, texts, None)
    reference = float(np.mean(predicted == labels))
    series = []
    for folder in args.model:
        runner = SkimRunner(folder)
        name = _export_title(runner.metadata)
        if jumps(runner.metadata):
            points = [jump_point(runner, texts, labels)]
            series.append({"label": f"{name} export (greedy agents)", "source": folder, "points": points})
        else:
            points = [skim_point(runner, texts, labels, t) for t in THRESHOLDS]
            series.append({"label": f"{name} export, thresholds 0 ... 1", "source": folder, "points": points})
    panel = {
        "split": f"{description} ({len(texts)} texts)",
        "reference": {
            "label": f"LSTM export ({os.path.basename(os.path.normpath(args.baseline))})",
            "accuracy": reference,
        },
        "series": series,
    }
    return {
        "title": f"{args.data}: exports in LiteRT, {len(texts)} test texts",
        "versions": runtime_versions(),
        "data": description,
        "baseline": args.baseline,
        "panels": [panel],
    }


def _export_title(metadata):
    kind = metadata.get("model_kind", "model")
    names = {"skim_lstm": "Skim-LSTM", "skim_gru": "Skim-GRU", "structural_jump_lstm": "Structural-Jump-LSTM"}
    return f"{names.get(kind, kind)} ({metadata.get('backend', 'builtin')}, d={metadata.get('units')})"


# ------------------------------------------------------------------ results
def _skim_panels(record):
    """Validation sweeps and test points of a `skim_reproduction_*.json`."""
    rows = record["rows"]
    lstm = next(r for r in rows if r["cell"] == "lstm")
    validation, test = [], []
    for r in rows:
        if r["cell"] == "lstm":
            continue
        name = f"{_cell(r['cell'])} d'={r['small_units']} gamma={r['gamma']}"
        tuned = r.get("tuned") or {}
        sweep = tuned.get("validation_sweep") or []
        if sweep:
            flops = _sweep_flop_r(record, r)
            points = [
                {
                    "threshold": p["threshold"],
                    "accuracy": p["accuracy"],
                    "skim_rate": p["skim_rate"],
                    "flop_r": flops(p),
                }
                for p in sweep
            ]
            validation.append({"label": name, "points": points})
        points = [{k: r.get(k) for k in ("threshold", "accuracy", "skim_rate", "flop_r")}]
        if tuned.get("test") and tuned["test"]["threshold"] != r.get("threshold"):
            points.append({k: tuned["test"].get(k) for k in ("threshold", "accuracy", "skim_rate", "flop_r")})
        test.append({"label": name, "points": points})
    panels = []
    if validation:
        panels.append(
            {
                "split": "validation, threshold sweep",
                "reference": {"label": "LSTM", "accuracy": lstm["validation_accuracy"]},
                "series": validation,
            }
        )
    panels.append(
        {
            "split": f"test ({lstm['examples']} texts): threshold 0.5, and the validation-tuned one",
            "reference": {"label": "LSTM", "accuracy": lstm["accuracy"]},
            "series": test,
        }
    )
    return panels


def _sweep_flop_r(record, row):
    """Flop-R of a validation sweep point (the sweep records only the skim
    rate): `keras_skim.analysis.flops` for the row's cell, d, d' and a
    50-dimensional input (GloVe 50d), used only when that gives the row's
    own recorded test Flop-R back."""
    from keras_skim.analysis.flops import flop_report

    kind, units = row["cell"].removeprefix("skim-"), record.get("arguments", {}).get("units", 100)

    def flop_r(point):
        return flop_report(kind, units, row["small_units"], 50, point["skim_rate"])["flop_r"]

    if row.get("flop_r") is None or abs(flop_r(row) - row["flop_r"]) > 1e-6 * row["flop_r"]:
        return lambda point: None
    return flop_r


def _cell(cell):
    return {"skim-lstm": "Skim-LSTM", "skim-gru": "Skim-GRU"}.get(cell, cell)


def _jump_point(row, label):
    return {
        "label": label,
        "points": [
            {
                "threshold": None,
                "accuracy": row["accuracy"],
                "skim_rate": 1.0 - row["read_fraction"],
                "skip_fraction": row["skip_fraction"],
                "jump_fraction": row["jump_fraction"],
                "flop_r": row.get("flop_r"),
            }
        ],
    }


def _jump_series(record, path):
    """(LSTM reference row, series) of an SJ result file, or None without an SJ-LSTM row."""
    name = os.path.splitext(os.path.basename(path))[0]
    if "rows" in record:
        rows = {r["model"]: r for r in record["rows"]}
        if "SJ-LSTM" not in rows:
            return None
        sj = rows["SJ-LSTM"]
        selection = sj.get("speed_read_selection", "best val_reward").replace("val_read_fraction", "val. read")
        label = f"{name.removeprefix('sj_reproduction_')}: {selection.replace('val_', 'val. ')}"
        return rows["LSTM"], _jump_point(sj, label)
    if "test" in record and "lstm" in record:
        return record["lstm"], _jump_point(record["test"], f"{name}: the authors' step schedule")
    return None


def read_results(paths):
    records, skim_panels, jump_series, reference = [], [], [], None
    for path in paths:
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
        records.append({"file": path, "command": record.get("command"), "versions": record.get("versions")})
        rows = record.get("rows") or []
        if rows and "cell" in rows[0]:
            skim_panels += _skim_panels(record)
            continue
        found = _jump_series(record, path)
        if found is None:
            raise SystemExit(f"{path}: no Skim-RNN or Structural-Jump-LSTM rows to plot")
        lstm, series = found
        if reference is not None and abs(reference - lstm["accuracy"]) > 1e-9:
            raise SystemExit(f"{path}: its LSTM ({lstm['accuracy']}) is not the others' ({reference})")
        reference = lstm["accuracy"]
        jump_series.append(series)
    panels = list(skim_panels)
    if jump_series:
        panels.append(
            {"split": "test", "reference": {"label": "LSTM (same data)", "accuracy": reference}, "series": jump_series}
        )
    return {"title": None, "sources": records, "panels": panels}


# ------------------------------------------------------------------ output
def plot(record, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = record["panels"]
    fig, axes = plt.subplots(len(panels), 2, figsize=(11, 4 * len(panels)), squeeze=False)
    for row, panel in zip(axes, panels):
        for ax, axis in zip(row, ("skim_rate", "flop_r")):
            _draw(ax, panel, axis)
    fig.suptitle(record["title"], fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _draw(ax, panel, axis):
    accuracies = [panel["reference"]["accuracy"]]
    drawn = False
    for series in panel["series"]:
        points = [p for p in series["points"] if p.get(axis) is not None]
        if not points:
            continue
        drawn = True
        style = "o-" if len(points) > 1 and points[0].get("threshold") is not None else "s"
        xs, ys = [p[axis] for p in points], [p["accuracy"] for p in points]
        ax.plot(xs, ys, style, label=series["label"], markersize=5)
        accuracies += ys
        for p in points:
            if p.get("threshold") is not None:
                ax.annotate(f"{p['threshold']:g}", (p[axis], p["accuracy"]), fontsize=6, xytext=(3, 3),
                            textcoords="offset points")  # fmt: skip
    reference = panel["reference"]
    ax.axhline(
        reference["accuracy"],
        color="grey",
        linestyle="--",
        label=f"{reference['label']} ({reference['accuracy']:.3f}, reads all)",
    )
    ax.set_ylim(min(accuracies) - 0.01, max(accuracies) + 0.01)
    ax.set_xlabel(
        "skim rate (fraction of tokens / words not read)"
        if axis == "skim_rate"
        else "Flop-R (LSTM FLOPs / model FLOPs)"
    )
    ax.set_ylabel("accuracy")
    ax.set_title(panel["split"] + ("" if drawn else ": no Flop-R recorded"), fontsize=8)
    ax.legend(fontsize=6, loc="best")


def markdown(record, command):
    lines = [
        f"# Trade-off: {record['title']}",
        "",
        f"Command: `{command}`",
        "",
        f"Machine: {record['machine']}; versions: {record['versions']}",
        "",
    ]
    if record.get("sources"):
        lines += ["Drawn from committed results (no model was run for this plot):", ""]
        lines += [f"- `{s['file']}`, measured by `{s['command']}`" for s in record["sources"]]
        lines.append("")
    for panel in record["panels"]:
        reference = panel["reference"]
        lines += [
            f"## {panel['split']}",
            "",
            f"Reference: {reference['label']}, accuracy {reference['accuracy']:.4f} (reads every token).",
            "",
            "| model | threshold | accuracy | vs LSTM | skim rate | Flop-R |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for series in panel["series"]:
            for p in series["points"]:
                threshold = "greedy" if p.get("threshold") is None else f"{p['threshold']:g}"
                flops = "" if p.get("flop_r") is None else f"{p['flop_r']:.2f}x"
                lines.append(
                    f"| {series['label']} | {threshold} | {p['accuracy']:.4f} | "
                    f"{p['accuracy'] - reference['accuracy']:+.4f} | {p['skim_rate']:.3f} | {flops} |"
                )
        lines.append("")
    lines += [f"![accuracy against skim rate and Flop-R]({os.path.basename(record['out'])}.png)", ""]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="source", required=True)
    exports = sub.add_parser("exports", help="measure export folders in LiteRT")
    exports.add_argument("--model", required=True, action="append", help="export folder (repeat for several)")
    exports.add_argument("--baseline", required=True, help="export folder of the LSTM of the same data")
    exports.add_argument("--data", default="rotten_tomatoes")
    exports.add_argument("--samples", type=int, default=1276)
    exports.add_argument("--out", required=True, help="output path without extension")
    results = sub.add_parser("results", help="draw committed benchmark results")
    results.add_argument("--results", required=True, nargs="+", help="result JSON files of one data set")
    results.add_argument("--title", required=True)
    results.add_argument("--out", required=True, help="output path without extension")
    args = parser.parse_args(argv)

    record = measure_exports(args) if args.source == "exports" else read_results(args.results)
    if args.source == "results":
        record["title"] = args.title
        record["versions"] = "those of the runs above"
    command = "python " + " ".join(shlex.quote(a) for a in [os.path.relpath(__file__), *(argv or sys.argv[1:])])
    record.update(command=command, machine=f"{platform.platform()}, {os.cpu_count()} CPUs", out=args.out)
    with open(args.out + ".json", "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1)
    text = markdown(record, command)
    with open(args.out + ".md", "w", encoding="utf-8") as f:
        f.write(text)
    plot(record, args.out + ".png")
    print(text)


if __name__ == "__main__":
    main()
