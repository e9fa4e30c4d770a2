"""Accuracy against skim rate (and Flop-R) of an exported skim model over a
threshold sweep, with the LSTM export of the same data as the reference:
the trade-off a user picks a threshold from. Runtime only (no TensorFlow):
the exports run in LiteRT as `keras-skim bench` runs them.

Writes <out>.json, <out>.md (machine, versions, command) and <out>.png.

    python benchmarks/tradeoff_plot.py \\
        --model android_demo/app/src/main/assets/keras_skim/skim_lstm_custom \\
        --baseline android_demo/app/src/main/assets/keras_skim/lstm_builtin \\
        --data rotten_tomatoes --samples 1276 --out benchmarks/results/tradeoff_demo_rotten_tomatoes
"""

import argparse
import json
import os
import platform
import shlex
import sys

import numpy as np

THRESHOLDS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def predictions(runner, texts, threshold):
    """(predicted class per text, tokens read, tokens seen) over `texts`."""
    from keras_skim.runtime.runner import probabilities_from_logits

    predicted, read, seen = [], 0, 0
    for text in texts:
        ids, tokens = runner.encode(text)
        out = runner.run_ids(ids, threshold)
        probabilities = probabilities_from_logits(out["logits"], runner.metadata.output_activation)
        probabilities = np.asarray(probabilities).reshape(-1)
        predicted.append(int(probabilities[0] >= 0.5) if probabilities.size == 1 else int(np.argmax(probabilities)))
        read += int(np.sum(np.asarray(out["read_mask"]).reshape(-1)[: len(tokens)] == 1))
        seen += len(tokens)
    return np.asarray(predicted), read, seen


def sweep(model, baseline, texts, labels, thresholds):
    from keras_skim.runtime.bench import flop_r

    labels = np.asarray(labels)
    rows = []
    for threshold in thresholds:
        predicted, read, seen = predictions(model, texts, threshold)
        skim_rate = 1.0 - read / max(seen, 1)
        rows.append(
            {
                "threshold": threshold,
                "accuracy": float(np.mean(predicted == labels)),
                "skim_rate": skim_rate,
                "flop_r": flop_r(model.metadata, skim_rate),
            }
        )
    predicted, _, _ = predictions(baseline, texts, None)
    return rows, float(np.mean(predicted == labels))


def plot(rows, baseline_accuracy, title, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    skim = [r["skim_rate"] for r in rows]
    ax.plot(skim, [r["accuracy"] for r in rows], "o-", label="Skim-LSTM export, thresholds 0 ... 1")
    for r in rows:
        ax.annotate(
            f"{r['threshold']:.1f}",
            (r["skim_rate"], r["accuracy"]),
            fontsize=7,
            xytext=(3, 3),
            textcoords="offset points",
        )
    ax.axhline(
        baseline_accuracy, color="grey", linestyle="--", label=f"LSTM export ({baseline_accuracy:.3f}, reads all)"
    )
    accuracies = [r["accuracy"] for r in rows] + [baseline_accuracy]
    ax.set_ylim(min(accuracies) - 0.01, max(accuracies) + 0.01)
    ax.set_xlabel("skim rate (fraction of tokens skimmed)")
    ax.set_ylabel("test accuracy")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="export folder of the skim model")
    parser.add_argument("--baseline", required=True, help="export folder of the LSTM it replaces")
    parser.add_argument("--data", default="rotten_tomatoes")
    parser.add_argument("--samples", type=int, default=1276)
    parser.add_argument("--out", required=True, help="output path without extension")
    args = parser.parse_args(argv)

    from keras_skim.runtime.bench_data import load_bench_texts
    from keras_skim.runtime.interpreter_loader import runtime_versions
    from keras_skim.runtime.runner import SkimRunner

    model, baseline = SkimRunner(args.model), SkimRunner(args.baseline)
    texts, labels, description = load_bench_texts(args.data, args.samples, num_classes=model.metadata.num_classes)
    rows, baseline_accuracy = sweep(model, baseline, texts, labels, THRESHOLDS)
    command = "python " + " ".join(shlex.quote(a) for a in [os.path.relpath(__file__), *(argv or sys.argv[1:])])
    record = {
        "command": command,
        "machine": f"{platform.platform()}, {os.cpu_count()} CPUs",
        "versions": runtime_versions(),
        "data": description,
        "model": args.model,
        "baseline": args.baseline,
        "baseline_accuracy": baseline_accuracy,
        "rows": rows,
    }
    with open(args.out + ".json", "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1)
    lines = [
        "# Accuracy against skim rate (threshold sweep)",
        "",
        f"Command: `{command}`",
        "",
        f"Machine: {record['machine']}; versions: {record['versions']}",
        "",
        f"Data: {description}. Reference: the LSTM export, accuracy {baseline_accuracy:.4f} (reads every token).",
        "",
        "| threshold | accuracy | vs LSTM | skim rate | Flop-R |",
        "|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        flops = "" if r["flop_r"] is None else f"{r['flop_r']:.2f}x"
        lines.append(
            f"| {r['threshold']:.1f} | {r['accuracy']:.4f} | {r['accuracy'] - baseline_accuracy:+.4f} | "
            f"{r['skim_rate']:.3f} | {flops} |"
        )
    lines += ["", f"![accuracy against skim rate]({os.path.basename(args.out)}.png)", ""]
    with open(args.out + ".md", "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    title = f"{os.path.basename(os.path.normpath(args.model))}: {args.data}, {len(texts)} test texts"
    plot(rows, baseline_accuracy, title, args.out + ".png")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
