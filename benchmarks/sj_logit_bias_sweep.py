"""Structural-Jump-LSTM's accuracy against its read fraction when a bias is added
to the agents' logits at inference (issue 16, item 4(b); no training).

Takes a trained model from the checkpoint of a `sj_authors_schedule.py` run
($KERAS_SKIM_CACHE/runs/<run>/checkpoint.npz; a finished run's checkpoint
holds the weights that run kept), rebuilds the same data splits
(`load_dataset_splits`, seed 0), and evaluates the greedy policy with

- `skip`: b added to the skip agent's SKIP logit (b > 0 skips more),
- `jump`: b added to the jump agent's three jump logits (next separator,
  next sentence, end of text; b > 0 jumps more),
- `both`: b added to both,

for every b of --biases. The logits are biased through the policy layers'
bias vectors, the exact place where a logit offset enters; the weights are
restored after each point. If reading less by a bias costs little accuracy,
the agents' policy, not the classifier, is what keeps the read fraction up.

Writes results/sj_logit_bias_sweep_<data>[_<tag>].json, .md and .png
(accuracy against read fraction, the LSTM's accuracy as reference).

    python benchmarks/sj_logit_bias_sweep.py --data rotten_tomatoes --run sj_authors_schedule_rotten_tomatoes
"""

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

BIASES = (-4.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0)
KINDS = ("skip", "jump", "both")


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", choices=["rotten_tomatoes", "imdb"], required=True)
    parser.add_argument("--run", required=True, help="run folder name under $KERAS_SKIM_CACHE/runs")
    parser.add_argument("--limit", type=int, default=None, help="the run's --limit (same splits)")
    parser.add_argument("--biases", default=",".join(str(b) for b in BIASES))
    parser.add_argument("--tag", default=None)
    parser.add_argument(
        "--slice-lstm",
        default=None,
        help="the reference LSTM from this sj_fixed_readers.py result's k=all row (an LSTM on the same --limit "
        "slice) instead of sj_reproduction_<data>.json",
    )
    parser.add_argument("--results", default=os.path.join(HERE, "results"))
    return parser.parse_args(argv)


def load_model(run_dir):
    """The model a finished run kept, rebuilt from its checkpoint's settings and variables."""
    from keras_skim.models.structural_jump.structural_jump_lstm import StructuralJumpLSTM
    from keras_skim.training.run_checkpoint import RunCheckpoint

    state, arrays = RunCheckpoint(run_dir).load()
    if state["phase"] != "done":
        raise SystemExit(f"{run_dir}: the run is not finished (phase {state['phase']}); its weights are not kept yet")
    model = StructuralJumpLSTM(**state["settings"]["model"])
    names = [f"model/{i}" for i in range(len(model.variables))]
    if sorted(names) != sorted(k for k in arrays if k.startswith("model/")):
        raise SystemExit(f"{run_dir}: the checkpoint's variables do not fit the model of its settings")
    for name, variable in zip(names, model.variables):
        variable.assign(arrays[name])
    model.speed_reading = True
    return model, state


def biased(model, kind, bias):
    """Adds `bias` to the chosen logits; returns a function that restores the weights."""
    from keras_skim.models.structural_jump.structural_jump_lstm_cell import NEXT_WORD, SKIP

    cell = model.cell
    saved = [cell.skip_policy.bias.numpy(), cell.jump_policy.bias.numpy()]
    skip, jump = saved[0].copy(), saved[1].copy()
    if kind in ("skip", "both"):
        skip[SKIP] += bias
    if kind in ("jump", "both"):
        jump[[a for a in range(len(jump)) if a != NEXT_WORD]] += bias
    cell.skip_policy.bias.assign(skip)
    cell.jump_policy.bias.assign(jump)

    def restore():
        cell.skip_policy.bias.assign(saved[0])
        cell.jump_policy.bias.assign(saved[1])

    return restore


def point(model, data, kind, bias):
    from keras_skim.models.structural_jump.structural_jump_evaluation import evaluate_structural_jump

    restore = biased(model, kind, bias)
    try:
        row = {"kind": kind, "bias": bias}
        for split in ("validation", "test"):
            scores = evaluate_structural_jump(model, *data[split])
            row[split] = {
                k: scores[k]
                for k in ("accuracy", "read_fraction", "skip_fraction", "jump_fraction", "reward", "flop_r")
            }
            row[split]["per_document_read_fraction"] = scores["per_document"]["read_fraction"]
    finally:
        restore()
    return row


def references(data_name, run_name):
    """Our LSTM's test accuracy (sj_reproduction) and the run's full-read phase (its result file)."""
    out = {}
    path = os.path.join(HERE, "results", f"sj_reproduction_{data_name}.json")
    if os.path.exists(path):
        with open(path) as f:
            row = next(r for r in json.load(f)["rows"] if r["model"] == "LSTM")
        out["lstm"] = {"accuracy": row["accuracy"], "source": os.path.basename(path)}
    path = os.path.join(HERE, "results", run_name + ".json")
    if os.path.exists(path):
        with open(path) as f:
            report = json.load(f)
        out["full_read_phase"] = {"accuracy": report["full_read"]["test_accuracy"], "source": os.path.basename(path)}
        out["run_test"] = {k: report["test"][k] for k in ("accuracy", "read_fraction", "skip_fraction")}
    return out


def plot(rows, refs, path, title):
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(7, 4.5))
    for kind, marker in zip(KINDS, "osd"):
        mine = sorted((r for r in rows if r["kind"] == kind), key=lambda r: r["test"]["read_fraction"])
        axis.plot(
            [r["test"]["read_fraction"] for r in mine],
            [r["test"]["accuracy"] for r in mine],
            marker + "-",
            markersize=4,
            label=f"bias on {kind} logits",
        )
    zero = next(r for r in rows if r["bias"] == 0.0)
    axis.plot([zero["test"]["read_fraction"]], [zero["test"]["accuracy"]], "k*", markersize=12, label="no bias")
    if "lstm" in refs:
        axis.axhline(refs["lstm"]["accuracy"], color="k", linestyle="--", label="LSTM (reads 100%)")
    if "full_read_phase" in refs:
        axis.axhline(refs["full_read_phase"]["accuracy"], color="gray", linestyle=":", label="SJ full-read phase")
    axis.set_xlabel("read fraction of the test words (corpus)")
    axis.set_ylabel("test accuracy")
    axis.set_xlim(0, 1.02)
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8, loc="lower right")
    axis.set_title(title, fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def markdown(report):
    pct = lambda v: f"{100 * v:.1f}%"  # noqa: E731
    refs = report["references"]
    lines = [
        f"# Structural-Jump-LSTM on {report['data']}: a bias on the agents' logits at inference",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Model: the one kept by the run `{report['run']}` (checkpoint {report['checkpoint']}; "
        f"{report['model_note']}). No training: the greedy policy is evaluated with b added to the SKIP logit "
        "(`skip`), to the three jump logits (`jump`: next separator, next sentence, end of text) or to both. "
        f"Test set: {report['test_examples']} texts; validation: {report['validation_examples']}.",
        "",
        f"Machine: {report['machine']['platform']}, {report['machine']['cpu_count']} CPUs; "
        + ", ".join(f"{k} {v}" for k, v in report["versions"].items()),
        "",
    ]
    if "lstm" in refs:
        lines.append(
            f"Reference: our LSTM 128, test accuracy {refs['lstm']['accuracy']:.4f} ({refs['lstm']['source']})."
        )
    if "full_read_phase" in refs:
        lines.append(
            f"The run's own full-read phase (every word read): {refs['full_read_phase']['accuracy']:.4f} "
            f"({refs['full_read_phase']['source']})."
        )
    lines += [
        "",
        f"Plot: {report['plot']}.",
        "",
        "| bias on | b | test accuracy | read | skip | jump | Flop-r | val accuracy | val read |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in report["rows"]:
        t, v = r["test"], r["validation"]
        lines.append(
            f"| {r['kind']} | {r['bias']:g} | {t['accuracy']:.4f} | {pct(t['read_fraction'])} | "
            f"{pct(t['skip_fraction'])} | {pct(t['jump_fraction'])} | {t['flop_r']:.2f}x | {v['accuracy']:.4f} | "
            f"{pct(v['read_fraction'])} |"
        )
    lines += ["", "## What it shows", "", *report["findings"], ""]
    return "\n".join(lines)


def findings(rows, refs):
    """The frontier: at a few read-fraction ceilings, the point chosen on the validation set, and its test result."""
    out = []
    lstm = refs.get("lstm", {}).get("accuracy")
    for ceiling in (0.6, 0.5, 0.4, 0.3, 0.2):
        fits = [r for r in rows if r["validation"]["read_fraction"] <= ceiling]
        if not fits:
            out.append(f"- No point reads <= {ceiling:.0%} of the validation words.")
            continue
        best = max(fits, key=lambda r: r["validation"]["accuracy"])
        t = best["test"]
        vs = f" ({100 * (t['accuracy'] - lstm):+.2f} pt vs the LSTM)" if lstm is not None else ""
        out.append(
            f"- Reading <= {ceiling:.0%} of the validation words, the most accurate on validation: bias "
            f"{best['bias']:g} on {best['kind']}; test {t['accuracy']:.4f}{vs} at {100 * t['read_fraction']:.1f}% "
            f"read ({100 * t['skip_fraction']:.1f}% skipped, {100 * t['jump_fraction']:.1f}% jumped)."
        )
    return out


def main(argv=None):
    args = parse(argv)
    import litert_report

    from keras_skim.models.structural_jump.structural_jump_training import load_dataset_splits
    from keras_skim.models.text_classifier.text_classifier_training import versions
    from keras_skim.training.run_checkpoint import runs_root

    started = time.time()
    load_at_start = [round(x, 2) for x in os.getloadavg()]
    run_dir = os.path.join(runs_root(), args.run)
    model, state = load_model(run_dir)
    data, _, _ = load_dataset_splits(args.data, limit=args.limit, seed=state["settings"]["seed"], glove=False)
    for split in ("train", "validation"):
        n = state["settings"][f"{split}_examples"]
        if len(data[split][1]) != n:
            raise SystemExit(f"the {split} split has {len(data[split][1])} texts, the run's {n}: other splits")
    biases = [float(b) for b in args.biases.split(",")]
    rows = []
    for kind in KINDS:
        for bias in biases:
            if bias == 0.0 and kind != KINDS[0]:
                continue  # the same point as skip, b = 0
            row = point(model, data, kind, bias)
            rows.append(row)
            t = row["test"]
            print(
                f"{kind} {bias:+g}: test accuracy {t['accuracy']:.4f}, read {t['read_fraction']:.1%}, "
                f"skip {t['skip_fraction']:.1%}, jump {t['jump_fraction']:.1%}",
                flush=True,
            )
    refs = references(args.data, args.run)
    if args.slice_lstm:
        with open(args.slice_lstm) as f:
            fixed = json.load(f)
        row = next(r for r in fixed["rows"] if r["k"] == "all")
        refs["lstm"] = {"accuracy": row["test_accuracy"], "source": os.path.basename(args.slice_lstm)}
    suffix = f"_{args.tag}" if args.tag else ""
    stem = os.path.join(args.results, f"sj_logit_bias_sweep_{args.data}{suffix}")
    report = {
        "command": litert_report.command(),
        "machine": litert_report.timed_machine(load_at_start),
        "versions": versions(),
        "data": args.data,
        "run": args.run,
        "checkpoint": os.path.join("$KERAS_SKIM_CACHE/runs", args.run, "checkpoint.npz"),
        "model_note": f"speed read {state['phases']['speed_read']['steps_run']} steps, kept step "
        f"{state['phases']['speed_read']['selected_step']} ({state['phases']['speed_read']['selection']})",
        "test_examples": int(len(data["test"][1])),
        "validation_examples": int(len(data["validation"][1])),
        "references": refs,
        "rows": rows,
        "findings": findings(rows, refs),
        "plot": os.path.basename(stem) + ".png",
        "seconds": time.time() - started,
    }
    os.makedirs(args.results, exist_ok=True)
    plot(rows, refs, stem + ".png", f"SJ-LSTM ({args.run}): logit bias at inference")
    litert_report.write_files(stem, report, markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
