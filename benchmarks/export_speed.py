"""Speed of exported Skim-LSTM models against LSTMs exported the same way.

Builds Skim-LSTM models (random weights) at d = 100, 256, 512 with d' = 10
and an LSTM of the same d, exports both with `keras_skim.export`, picks the
runtime threshold that gives each target skim rate on the benchmark inputs
(the actual rate is measured and reported), and times them with the
TensorFlow-free bench code (LiteRT, 1 thread, batch 1, 200 tokens, runs of
model and baseline interleaved). Also times the plain Keras LSTM converted
by `TFLiteConverter.from_keras_model` (the "export nothing special" path).

    python benchmarks/export_speed.py [--quick]

Writes benchmarks/results/export_speed.json and .md.
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

V, E, T, SMALL = 2000, 100, 200, 10
CASES = [(100, [None, 0.85, 1.0]), (256, [0.8, 0.95]), (512, [0.8, 0.95])]


def build(d, skim, seed):
    import keras

    from keras_skim import SkimLSTMCell

    keras.utils.set_random_seed(seed)
    inp = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(V, E, mask_zero=True)(inp)
    x = keras.layers.RNN(SkimLSTMCell(d, SMALL))(x) if skim else keras.layers.LSTM(d)(x)
    return keras.Model(inp, keras.layers.Dense(2)(x))


def keras_converted_lstm(model, path):
    import keras
    import tensorflow as tf

    inp = keras.Input((None,), dtype="int32", batch_size=1)
    fixed = keras.Model(inp, model(inp))
    converter = tf.lite.TFLiteConverter.from_keras_model(fixed)
    with open(path, "wb") as f:
        f.write(converter.convert())


def threshold_for(runner, ids_list, target):
    """Runtime threshold whose skim rate on ids_list is closest to target."""
    if target is None:
        return 0.0
    if target >= 1.0:
        return 1.5

    def rate(t):
        reads = sum(int(runner.run_ids(ids, t)["read_count"][0]) for ids in ids_list)
        return 1.0 - reads / sum(len(i) for i in ids_list)

    lo, hi = 0.0, 1.0
    for _ in range(18):
        mid = (lo + hi) / 2
        if rate(mid) < target:
            lo = mid
        else:
            hi = mid
    return hi


def time_raw(path, ids_list, repeats):
    from keras_skim.runtime.interpreter_loader import make_interpreter

    it = make_interpreter(model_path=path, num_threads=1)
    runner = it.get_signature_runner()
    name = list(it.get_signature_list()["serving_default"]["inputs"])[0]
    for ids in ids_list:
        runner(**{name: ids[None, :]})
    per_token = []
    for _ in range(repeats):
        for ids in ids_list:
            t0 = time.perf_counter()
            runner(**{name: ids[None, :]})
            per_token.append((time.perf_counter() - t0) / len(ids) * 1e6)
    return float(np.median(per_token))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="d=100 only, fewer repeats")
    args = parser.parse_args()
    cases = CASES[:1] if args.quick else CASES

    from keras_skim.export.exporter import export_model
    from keras_skim.runtime.bench import bench_threshold
    from keras_skim.runtime.runner import SkimRunner

    rng = np.random.default_rng(0)
    ids_list = [rng.integers(1, V, size=T).astype(np.int32) for _ in range(args.samples)]
    rows = []
    started = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        for d, targets in cases:
            paths = {}
            for kind, skim in (("skim", True), ("lstm", False)):
                model = build(d, skim, seed=d)
                model_file = os.path.join(tmp, f"{kind}{d}.keras")
                model.save(model_file)
                export_model(model_file, os.path.join(tmp, f"{kind}{d}"), parity_samples=2)
                paths[kind] = os.path.join(tmp, f"{kind}{d}")
                if not skim:
                    paths["raw"] = os.path.join(tmp, f"raw{d}.tflite")
                    keras_converted_lstm(model, paths["raw"])
            skim_runner = SkimRunner(paths["skim"])
            base_runner = SkimRunner(paths["lstm"])
            raw_us = time_raw(paths["raw"], ids_list, args.repeats)
            for target in targets:
                threshold = threshold_for(skim_runner, ids_list, target)
                r = bench_threshold(skim_runner, base_runner, ids_list, ids_list, None, threshold, args.repeats)
                row = {
                    "units": d,
                    "small_units": SMALL,
                    "target_skim_rate": target,
                    "threshold": threshold,
                    "skim_rate": r["skim_rate"],
                    "skim_us_per_token": r["model_latency"]["median_us"],
                    "lstm_export_us_per_token": r["baseline_latency"]["median_us"],
                    "speedup_vs_lstm_export": r["speedup"],
                    "keras_converted_lstm_us_per_token": raw_us,
                    "speedup_vs_keras_converted_lstm": raw_us / r["model_latency"]["median_us"],
                    "flop_r": r["flop_r"],
                    "speedup_over_flop_r": r["speedup"] / r["flop_r"],
                }
                rows.append(row)
                print(json.dumps(row), flush=True)
    report = {
        "machine": litert_report.machine(),
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
        },
        "seconds": round(time.time() - started, 1),
        "rows": rows,
    }
    litert_report.write("export_speed", report, _markdown(report))


def _markdown(report):
    lines = [
        "# Exported Skim-LSTM speed (LiteRT, builtin ops)",
        "",
        f"- machine: {report['machine']['platform']}, {report['machine']['processor']}, "
        f"{report['machine']['cpu_count']} CPUs (shared, noisy)",
        f"- versions: {', '.join(f'{k} {v}' for k, v in report['versions'].items())}",
        f"- command: `{report['command']}`",
        f"- setup: {report['setup']}",
        "- `LSTM export`: `keras.layers.LSTM` exported by keras-skim (same graph style, no IF);"
        " `Keras LSTM`: `TFLiteConverter.from_keras_model` of the same model.",
        "",
        "| d | d' | target skim | measured skim | skim us/tok | LSTM export us/tok | speed-up | Keras LSTM us/tok | speed-up vs Keras LSTM | Flop-R | speed-up / Flop-R |",  # noqa: E501 (a table header)
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["rows"]:
        target = "all read" if r["target_skim_rate"] is None else f"{r['target_skim_rate']:.2f}"
        lines.append(
            f"| {r['units']} | {r['small_units']} | {target} | {r['skim_rate']:.3f} | {r['skim_us_per_token']:.2f} | "
            f"{r['lstm_export_us_per_token']:.2f} | {r['speedup_vs_lstm_export']:.2f} | "
            f"{r['keras_converted_lstm_us_per_token']:.2f} | {r['speedup_vs_keras_converted_lstm']:.2f} | "
            f"{r['flop_r']:.2f} | {r['speedup_over_flop_r']:.2f} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
