"""Per-token latency of an exported ScoRNN text model against an LSTM with
the same number of recurrent parameters, both exported by keras-skim.

Builds (random weights) `Input(int32 [T]) -> Embedding(1000, 50,
mask_zero=True) -> RNN(cell) -> Dense(2)` with cell = `ScoRNNCell(170)` and
with `keras.layers.LSTM(u)`, u chosen so that the LSTM's 4u(e + u + 1)
parameters are closest to ScoRNN's trainable recurrent ones (n e input
kernel + n (n - 1) / 2 skew parameters + bias + modReLU bias). A SimpleRNN
baseline is added only if the exporter has an emitter for `SimpleRNNCell`.
Every model is exported with `keras_skim.export.exporter.export_model`
(builtin-op backend, parity with Keras checked) and timed with
`keras_skim.runtime.bench.bench_threshold` (LiteRT, batch 1, 1 thread,
200 random token ids per run, ScoRNN and baseline runs interleaved,
alternating which goes first, median over all timed runs).

    python benchmarks/scornn_export_speed.py [--samples 5] [--repeats 25]

Writes benchmarks/results/scornn_export_speed.json and .md.
"""

import argparse
import json
import os
import tempfile
import time

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import litert_report  # noqa: E402
import numpy as np  # noqa: E402

V, E, T, N = 1000, 50, 200, 170


def build(kind, units, seed):
    import keras

    from keras_skim.models.scornn.scornn_cell import ScoRNNCell

    keras.utils.set_random_seed(seed)
    inp = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(V, E, mask_zero=True)(inp)
    if kind == "scornn":
        cell = ScoRNNCell(units, seed=seed)
        x = keras.layers.RNN(cell)(x)
    elif kind == "lstm":
        x = keras.layers.LSTM(units)(x)
    else:
        x = keras.layers.SimpleRNN(units)(x)
    model = keras.Model(inp, keras.layers.Dense(2)(x))
    if kind == "scornn":
        # Non-trivial random weights (the default init makes U ~ 0 and
        # b_mod = 0); the latency does not depend on the values.
        rng = np.random.default_rng(seed)
        for var in (cell.kernel, cell.skew_parameters, cell.bias):
            var.assign(rng.normal(scale=0.1, size=var.shape))
        cell.modrelu_bias.assign(rng.uniform(-0.1, 0.05, size=units))
    return model


def recurrent_layer_params(model):
    import keras

    layer = next(layer for layer in model.layers if isinstance(layer, keras.layers.RNN))
    return int(sum(np.prod(w.shape) for w in layer.trainable_weights))


def tiny_tokenizer(folder):
    """tokenizer.json with V ids (w2 .. w999), as a real export would have."""
    from keras_skim.datasets.tokenizer import Tokenizer

    Tokenizer(["<pad>", "<unk>"] + [f"w{i}" for i in range(2, V)], max_length=T).save(folder)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=5, help="random 200-token sequences (default 5)")
    parser.add_argument("--repeats", type=int, default=25, help="interleaved timed rounds (default 25, >= 20)")
    args = parser.parse_args()

    from scornn_tasks import matched_units, rnn_parameters

    from keras_skim.export.emitter_registry import known_cells
    from keras_skim.export.exporter import export_model
    from keras_skim.runtime.bench import bench_threshold
    from keras_skim.runtime.runner import SkimRunner

    target = rnn_parameters("scornn", N, E)
    models = [("scornn", "ScoRNN", N), ("lstm", "LSTM (matched params)", matched_units("lstm", target, E))]
    skipped = {}
    if "SimpleRNNCell" in known_cells():
        models.append(("simple_rnn", "SimpleRNN (matched params)", matched_units("simple_rnn", target, E)))
    else:
        skipped["simple_rnn"] = (
            "the exporter has no emitter for SimpleRNNCell (known: " + ", ".join(known_cells()) + ")"
        )

    rng = np.random.default_rng(0)
    ids_list = [rng.integers(1, V, size=T).astype(np.int32) for _ in range(args.samples)]
    started = time.time()
    info, runners = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for kind, label, units in models:
            model = build(kind, units, seed=units)
            folder = os.path.join(tmp, kind)
            os.makedirs(folder)
            tiny_tokenizer(folder)
            model_file = os.path.join(folder, "model.keras")
            model.save(model_file)
            t0 = time.time()
            result = export_model(model_file, os.path.join(tmp, f"{kind}-export"), parity_samples=2)
            meta = result.metadata
            info[kind] = {
                "label": label,
                "units": units,
                "recurrent_params": recurrent_layer_params(model),
                "total_params": int(model.count_params()),
                "export_seconds": round(time.time() - t0, 2),
                "tflite_bytes": meta.tflite_bytes,
                "parity_max_abs_diff": result.parity.as_dict().get("max_abs_diff"),
                "flops_per_token": meta.flops.baseline_flops_per_token if meta.flops else None,
                "ops": meta.tflite_ops,
            }
            runners[kind] = SkimRunner(os.path.join(tmp, f"{kind}-export"), num_threads=1)
            print(json.dumps({kind: {k: v for k, v in info[kind].items() if k != "ops"}}), flush=True)

        # Each baseline timed interleaved with ScoRNN.
        comparisons = []
        for kind, _, _ in models[1:]:
            r = bench_threshold(runners["scornn"], runners[kind], ids_list, ids_list, None, 0.0, args.repeats)
            comparisons.append(
                {
                    "baseline": kind,
                    "scornn_us_per_token": r["model_latency"]["median_us"],
                    "scornn_p90_us": r["model_latency"]["p90_us"],
                    "baseline_us_per_token": r["baseline_latency"]["median_us"],
                    "baseline_p90_us": r["baseline_latency"]["p90_us"],
                    "runs_each": r["model_latency"]["runs"],
                    # ScoRNN time / baseline time: median over rounds of the
                    # per-round totals (>1: ScoRNN slower)
                    "scornn_over_baseline": 1.0 / r["speedup"],
                    "scornn_over_baseline_per_token_medians": 1.0 / r["speedup_per_token_median"],
                }
            )
            print(json.dumps(comparisons[-1]), flush=True)
    report = {
        "machine": litert_report.machine(load_average=True),
        "versions": litert_report.versions(),
        "command": litert_report.command(),
        "setup": {
            "vocabulary": V,
            "embedding_dim": E,
            "tokens": T,
            "samples": args.samples,
            "repeats": args.repeats,
            "threads": 1,
            "batch": 1,
            "backend": "builtin",
            "scornn_target_recurrent_params": target,
        },
        "models": info,
        "skipped": skipped,
        "comparisons": comparisons,
        "seconds": round(time.time() - started, 1),
    }
    litert_report.write("scornn_export_speed", report, _markdown(report))


def table(report):
    lines = [
        "| model | units | recurrent params | TFLite bytes | us/token (median) | p90 | ScoRNN / model (interleaved) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    info = report["models"]
    # ScoRNN's own latency: the pass against the LSTM
    lstm = next(c for c in report["comparisons"] if c["baseline"] == "lstm")
    s = info["scornn"]
    lines.append(
        f"| ScoRNN | {s['units']} | {s['recurrent_params']:,} | {s['tflite_bytes']:,} | "
        f"{lstm['scornn_us_per_token']:.2f} | {lstm['scornn_p90_us']:.2f} | 1.00 |"
    )
    for c in report["comparisons"]:
        m = info[c["baseline"]]
        lines.append(
            f"| {m['label']} | {m['units']} | {m['recurrent_params']:,} | {m['tflite_bytes']:,} | "
            f"{c['baseline_us_per_token']:.2f} | {c['baseline_p90_us']:.2f} | "
            f"**{c['scornn_over_baseline']:.2f}** |"
        )
    return "\n".join(lines)


def _markdown(report):
    setup = report["setup"]
    lines = [
        "# Exported ScoRNN speed (LiteRT, builtin ops)",
        "",
        f"- machine: {report['machine']['platform']}, {report['machine']['processor']}, "
        f"{report['machine']['cpu_count']} CPUs (shared, loaded: load average "
        f"{report['machine']['load_average_at_end']} at the end), Python {report['machine']['python']}",
        f"- versions: {', '.join(f'{k} {v}' for k, v in report['versions'].items())}",
        f"- command: `{report['command']}`",
        f"- models: `Input(int32 [T]) -> Embedding({setup['vocabulary']}, {setup['embedding_dim']}, mask_zero=True) "
        "-> RNN(cell) -> Dense(2)`, random weights, exported by `keras_skim.export.exporter.export_model` "
        "(builtin backend, parity with Keras checked)",
        f"- timing: batch {setup['batch']}, {setup['threads']} thread, {setup['samples']} random sequences of "
        f"{setup['tokens']} tokens, {setup['repeats']} interleaved rounds (ScoRNN and baseline alternate, "
        "which goes first alternates), warm-up excluded; us/token = median over all runs; the ratio is the "
        "median over rounds of ScoRNN time / baseline time",
        f"- recurrent params = trainable weights of the RNN layer (ScoRNN: n e + n (n-1)/2 + 2n = "
        f"{setup['scornn_target_recurrent_params']:,}; LSTM: 4u(e + u + 1))",
        "",
        table(report),
        "",
    ]
    for kind, why in report["skipped"].items():
        lines.append(f"- {kind} skipped: {why}")
    for kind, m in report["models"].items():
        lines.append(
            f"- {kind}: export {m['export_seconds']} s, parity max |diff| {m['parity_max_abs_diff']:.1e}, "
            f"FLOPs/token (export metadata) {m['flops_per_token']:,}"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
