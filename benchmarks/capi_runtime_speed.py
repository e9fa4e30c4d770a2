"""Speed of the LiteRT C API runtime (`keras_skim.runtime.litert_runner`,
what the Android app runs) against the ai-edge-litert Python `Interpreter`,
on the project's speed baseline: our builtin export of a Keras LSTM.

Exports LSTM classifiers (random weights, vocabulary 2000, embedding 100) at
d = 100 and 256 with `keras_skim.export`, then times one signature call
(inputs in, run, outputs out: what `keras-skim bench` times) through both
runtimes, batch 1, one thread, 200 tokens, the two runtimes interleaved
(alternating which goes first), medians over repeats. Two input patterns:
every text 200 tokens (no resizing), and lengths 200/150/180/120 in turn (an
input resize before every call, as with real texts). Checks that both give
the same logits.

    python benchmarks/capi_runtime_speed.py [--repeats 40] [--quick]

Writes benchmarks/results/capi_runtime_speed.json and .md.
"""
import argparse
import os
import tempfile
import time

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import litert_report  # noqa: E402
import numpy as np  # noqa: E402

V, E, T = 2000, 100, 200
UNITS = (100, 256)
PATTERNS = {"fixed 200": [200] * 4, "varying 200/150/180/120": [200, 150, 180, 120]}


def export_lstm(d, folder):
    import keras

    from keras_skim.export.exporter import export_model

    keras.utils.set_random_seed(d)
    inp = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(V, E, mask_zero=True)(inp)
    x = keras.layers.LSTM(d)(x)
    model = keras.Model(inp, keras.layers.Dense(2)(x))
    path = os.path.join(folder, f"lstm{d}.keras")
    model.save(path)
    out = os.path.join(folder, f"lstm{d}")
    export_model(path, out, parity_samples=2)
    return os.path.join(out, "model.tflite")


def runners(path):
    from ai_edge_litert.interpreter import Interpreter

    from keras_skim.runtime.litert_runner import LiteRtModel

    with open(path, "rb") as f:
        data = f.read()
    return {
        "python_interpreter": Interpreter(model_content=data, num_threads=1).get_signature_runner("serving_default"),
        "litert_c_api": LiteRtModel(data, num_threads=1).get_signature_runner("serving_default"),
    }


def time_pattern(runs, ids_list, repeats, warmup=3):
    names = list(runs)
    threshold = np.float32(0.0)
    for _ in range(warmup):
        for ids in ids_list:
            for name in names:
                runs[name](token_ids=ids, threshold=threshold)
    per_token = {name: [] for name in names}
    ratios = []
    for r in range(repeats):
        totals = dict.fromkeys(names, 0.0)
        for k, ids in enumerate(ids_list):
            order = names if (r + k) % 2 == 0 else names[::-1]
            for name in order:
                start = time.perf_counter()
                runs[name](token_ids=ids, threshold=threshold)
                seconds = time.perf_counter() - start
                totals[name] += seconds
                per_token[name].append(seconds / ids.shape[1] * 1e6)
        ratios.append(totals["python_interpreter"] / totals["litert_c_api"])
    worst = 0.0
    for ids in ids_list:
        a = runs["python_interpreter"](token_ids=ids, threshold=threshold)["logits"]
        b = runs["litert_c_api"](token_ids=ids, threshold=threshold)["logits"]
        worst = max(worst, float(np.max(np.abs(a - b))))
    return {
        "median_us_per_token": {n: float(np.median(v)) for n, v in per_token.items()},
        "p90_us_per_token": {n: float(np.percentile(v, 90)) for n, v in per_token.items()},
        "speedup_c_api": float(np.median(ratios)),
        "max_logit_difference": worst,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=40)
    parser.add_argument("--quick", action="store_true", help="d=100 only, 10 repeats")
    args = parser.parse_args()
    units = UNITS[:1] if args.quick else UNITS
    repeats = 10 if args.quick else args.repeats
    rng = np.random.default_rng(0)
    rows = []
    started = time.time()
    with tempfile.TemporaryDirectory() as folder:
        for d in units:
            runs = runners(export_lstm(d, folder))
            for pattern, lengths in PATTERNS.items():
                ids_list = [rng.integers(1, V, size=(1, n)).astype(np.int32) for n in lengths]
                rows.append({"units": d, "inputs": pattern, **time_pattern(runs, ids_list, repeats)})
    from keras_skim.runtime.litert_runner import load

    report = {
        "benchmark": "capi_runtime_speed",
        "model": f"builtin export of Embedding({V}, {E}) -> LSTM(d) -> Dense(2), random weights",
        "threads": 1, "batch": 1, "repeats": repeats,
        "libLiteRt": load()[1],
        "machine": litert_report.machine(load_average=True),
        "versions": litert_report.versions(),
        "command": litert_report.command(),
        "seconds": round(time.time() - started, 1),
        "rows": rows,
    }
    lines = [
        "# LiteRT C API runtime vs the ai-edge-litert Python Interpreter (builtin LSTM export)",
        "",
        f"- model: {report['model']}",
        f"- one signature call (inputs, run, outputs), batch 1, 1 thread, interleaved, {repeats} repeats; "
        "speed-up = median over repeats of (Interpreter time / C API time), > 1: the C API path is faster",
        f"- machine: {report['machine']['platform']}, {report['machine']['cpu_count']} CPUs, "
        f"load average at the end {report['machine']['load_average_at_end']}",
        f"- versions: {', '.join(f'{k} {v}' for k, v in report['versions'].items())}",
        f"- command: `{report['command']}` ({report['seconds']} s)",
        "",
        "| d | inputs | Interpreter us/token | C API us/token | speed-up of the C API | max logit difference |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        m = r["median_us_per_token"]
        lines.append(f"| {r['units']} | {r['inputs']} | {m['python_interpreter']:.2f} | {m['litert_c_api']:.2f} | "
                     f"{r['speedup_c_api']:.3f} | {r['max_logit_difference']:.1e} |")
    litert_report.write("capi_runtime_speed", report, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
