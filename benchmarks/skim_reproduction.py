"""Reproduces Skim-RNN's Table 2 settings (Seo et al., ICLR 2018) on
Rotten Tomatoes and IMDB: LSTM d=100 against Skim-LSTM d=100 with
d' in {5, 10} and gamma in {0.01, 0.02}, GloVe 6B 50d inputs.

Writes benchmarks/results/skim_reproduction_<data>.json and .md with the
machine, the versions and the command. Scale arguments (--limit,
--max-length, --epochs) say how far below the paper's settings a run went.

    python benchmarks/skim_reproduction.py --data rotten_tomatoes --epochs 3
"""

import argparse
import json
import os
import platform
import shlex
import sys
import tempfile

PAPER = {
    "rotten_tomatoes": "LSTM 82.5; Skim-LSTM 84.2 at 52% skim, Flop-R 2.1x",
    "imdb": "LSTM 91.1; Skim-LSTM 91.2 at 83.9% skim (5.8x), 90.9 at 90.7% (9.5x)",
}
CONFIGS = [
    ("lstm", 0, 0.0),
    ("skim-lstm", 5, 0.01),
    ("skim-lstm", 5, 0.02),
    ("skim-lstm", 10, 0.01),
    ("skim-lstm", 10, 0.02),
]


THRESHOLDS = [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7]


def tune_threshold(model_dir, args, lstm_validation, margin=0.005):
    """Picks the inference threshold on the validation split (paper Figure 5:
    the threshold trades accuracy for speed after training): the highest
    validation skim rate whose validation accuracy is within `margin` of the
    LSTM's, else the most accurate threshold. Returns it with the test
    results at that threshold."""
    import numpy as np
    import tqdm

    from keras_skim.datasets import Tokenizer, load_text_dataset
    from keras_skim.model_io import load_model
    from keras_skim.models.text_classifier.text_classifier_training import evaluate_model, flop_summary, load_encoded

    model = load_model(os.path.join(model_dir, "model.keras"))
    tokenizer = Tokenizer.load(os.path.join(model_dir, "tokenizer.json"))
    max_length = model.inputs[0].shape[1]
    with open(os.path.join(model_dir, "train_config.json")) as f:
        config = json.load(f)
    if args.data == "rotten_tomatoes":
        val_ids, val_y, _ = load_encoded(args.data, tokenizer, "validation", max_length)
    else:
        texts, labels = load_text_dataset(args.data, "train", limit=args.limit, seed=args.seed)
        held = np.random.RandomState(args.seed).permutation(len(texts))[: max(len(texts) // 10, 1)]
        val_ids = tokenizer.encode([texts[i] for i in held], max_length=max_length)
        val_y = np.asarray(labels, "float32")[held]
    sweep = [
        {"threshold": t, **evaluate_model(model, val_ids, val_y, threshold=t)}
        for t in tqdm.tqdm(THRESHOLDS, desc="validation threshold sweep", unit="threshold", file=sys.stderr)
    ]
    good = [r for r in sweep if lstm_validation is None or r["accuracy"] >= lstm_validation - margin]
    best = max(good, key=lambda r: r["skim_rate"]) if good else max(sweep, key=lambda r: r["accuracy"])
    test_ids, test_y, _ = load_encoded(
        args.data, tokenizer, "test", max_length, config["test"]["examples"] if args.limit else None, args.seed
    )
    test = evaluate_model(model, test_ids, test_y, threshold=best["threshold"])
    test["flop_r"] = flop_summary(model, test["skim_rate"])["flop_r"]
    return {"threshold": best["threshold"], "validation_sweep": sweep, "test": test}


def _parse_config(text):
    if text == "lstm":
        return ("lstm", 0, 0.0)
    cell, small, gamma = text.split(":")
    if cell != "skim-lstm":
        raise SystemExit(f"--configs: expected lstm or skim-lstm:D':GAMMA, got {text!r}")
    return (cell, int(small), float(gamma))


def _reused_lstm_row(path):
    """The LSTM row of an earlier run: a report's first lstm row, or a row alone."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as err:
        raise SystemExit(f"--lstm-row {path}: cannot read it as JSON ({err})") from None
    rows = data.get("rows", [data]) if isinstance(data, dict) else []
    lstm = [r for r in rows if isinstance(r, dict) and r.get("cell") == "lstm"]
    if not lstm or not {"accuracy", "validation_accuracy"} <= set(lstm[0]):
        raise SystemExit(f"--lstm-row {path}: expected an LSTM row with accuracy and validation_accuracy")
    return dict(lstm[0], reused_from=os.path.basename(path))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", choices=["rotten_tomatoes", "imdb"], required=True)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None, help="training subset size")
    parser.add_argument("--max-length", type=int, default=None)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--units", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--results", default=os.path.join(os.path.dirname(__file__), "results"))
    parser.add_argument(
        "--configs", default=None, help="comma-separated subset, e.g. lstm,skim-lstm:10:0.01 (default: all five)"
    )
    parser.add_argument("--name", default=None, help="result file stem (default skim_reproduction_<data>)")
    parser.add_argument(
        "--lstm-row",
        default=None,
        help="a JSON file holding the LSTM row of an earlier run with the same settings (a report "
        "of this script, or the row alone): reused instead of training the LSTM again",
    )
    args = parser.parse_args(argv)
    configs = CONFIGS if args.configs is None else [_parse_config(c) for c in args.configs.split(",")]
    reused = _reused_lstm_row(args.lstm_row) if args.lstm_row else None
    if reused is not None:
        configs = [c for c in configs if c[0] != "lstm"]

    from keras_skim.models.text_classifier.text_classifier_training import train_text_model, versions

    rows = [reused] if reused is not None else []
    lstm_validation = reused["validation_accuracy"] if reused is not None else None
    for cell, small, gamma in configs:
        with tempfile.TemporaryDirectory() as tmp:
            result = train_text_model(
                os.path.join(tmp, "model"),
                dataset=args.data,
                cell=cell,
                units=args.units,
                small_units=small,
                gamma=gamma,
                epochs=args.epochs,
                batch_size=args.batch_size,
                learning_rate=args.learning_rate,
                max_length=args.max_length,
                limit=args.limit,
                seed=args.seed,
                verbose=2,
            )
            row = {
                "cell": cell,
                "small_units": small,
                "gamma": gamma,
                **result["test"],
                "validation_accuracy": result["validation"]["accuracy"],
                "epochs_run": result["epochs_run"],
                "seconds_per_epoch": result["seconds_per_epoch"],
                "train_examples": result["train_examples"],
                "max_length": result["arguments"]["max_length"],
            }
            if cell == "lstm":
                lstm_validation = result["validation"]["accuracy"]
            else:
                row["tuned"] = tune_threshold(os.path.join(tmp, "model"), args, lstm_validation)
        rows.append(row)
        print(json.dumps(rows[-1]), flush=True)

    if not rows or rows[0]["cell"] != "lstm":
        raise SystemExit("--configs: the LSTM row comes first (lstm, or --lstm-row FILE)")
    baseline = rows[0]["accuracy"]
    report = {
        "command": " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv]),
        "arguments": vars(args),
        "versions": versions(),
        "paper": PAPER[args.data],
        "rows": rows,
    }
    os.makedirs(args.results, exist_ok=True)
    stem = os.path.join(args.results, args.name or f"skim_reproduction_{args.data}")
    with open(stem + ".json", "w") as f:
        json.dump(report, f, indent=2)
    lines = [
        f"# Skim-RNN reproduction on {args.data}",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Machine: {platform.platform()}, {os.cpu_count()} CPUs; versions: "
        + ", ".join(f"{k} {v}" for k, v in report["versions"].items() if k not in ("machine", "cpus")),
        "",
        f"Settings: d={args.units}, GloVe 6B 50d, Adam lr {args.learning_rate}, batch "
        f"{args.batch_size}, {args.epochs} epochs, {rows[0]['train_examples']} training texts, "
        f"max length {rows[0]['max_length']}, threshold 0.5.",
        "",
        f"Paper (Table 2): {PAPER[args.data]}.",
        "",
        *(
            [f"The LSTM row is reused from `{rows[0]['reused_from']}` (same settings, an earlier run).", ""]
            if rows[0].get("reused_from")
            else []
        ),
        "Threshold 0.5 is the default; the tuned threshold is chosen on the validation split "
        "(highest skim rate within 0.5 pt of the LSTM's validation accuracy), then applied to test.",
        "",
        "| model | d' | gamma | epochs | accuracy @0.5 | vs LSTM | skim rate | Flop-R "
        "| tuned thr. | accuracy | vs LSTM | skim rate | Flop-R | s/epoch |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        name = "LSTM" if r["cell"] == "lstm" else "Skim-LSTM"
        tuned = r.get("tuned")
        tuned_cells = (
            f"{tuned['threshold']:.2f} | {tuned['test']['accuracy']:.4f} | "
            f"{100 * (tuned['test']['accuracy'] - baseline):+.1f} pt | "
            f"{tuned['test']['skim_rate']:.3f} | {tuned['test']['flop_r']:.2f}x"
            if tuned
            else "- | - | - | - | -"
        )
        lines.append(
            f"| {name} | {r['small_units'] or '-'} | {r['gamma'] or '-'} | {r['epochs_run']} | "
            f"{r['accuracy']:.4f} | {100 * (r['accuracy'] - baseline):+.1f} pt | "
            f"{r['skim_rate']:.3f} | {r['flop_r']:.2f}x | {tuned_cells} | "
            f"{r['seconds_per_epoch']:.0f} |"
        )
    with open(stem + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
