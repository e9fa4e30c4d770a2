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
the same logits. A third row per d times the run alone (inputs set once,
no copies), through each runtime's public API.

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
    """{runtime: callable(token_ids, threshold) -> outputs}: one signature call."""
    from ai_edge_litert.interpreter import Interpreter

    from keras_skim.runtime.litert_runner import LiteRtModel

    with open(path, "rb") as f:
        data = f.read()
    python = Interpreter(model_content=data, num_threads=1).get_signature_runner("serving_default")
    ours = LiteRtModel(data, num_threads=1).get_signature_runner("serving_default")
    return {
        "python_interpreter": lambda ids, t: python(token_ids=ids, threshold=t),
        "litert_c_api": lambda ids, t: ours(token_ids=ids, threshold=t),
    }


def invoke_only(path, length):
    """{runtime: callable(ids, threshold)} that only runs: inputs set once
    (length tokens), outputs left where they are (public APIs of both)."""
    from ai_edge_litert.interpreter import Interpreter

    from keras_skim.runtime.litert_runner import LiteRtModel

    with open(path, "rb") as f:
        data = f.read()
    ids = np.random.default_rng(1).integers(1, V, size=(1, length)).astype(np.int32)
    python = Interpreter(model_content=data, num_threads=1)
    index = {d["name"]: d["index"] for d in python.get_input_details()}
    token_index = next(i for n, i in index.items() if "token_ids" in n)
    python.resize_tensor_input(token_index, [1, length])
    python.allocate_tensors()
    python.set_tensor(token_index, ids)
    python.set_tensor(next(i for n, i in index.items() if "threshold" in n), np.array(0.0, np.float32))
    ours = LiteRtModel(data, num_threads=1).get_signature_runner("serving_default")
    ours.set_inputs(token_ids=ids, threshold=np.float32(0.0))
    return {"python_interpreter": lambda ids, t: python.invoke(), "litert_c_api": lambda ids, t: ours.invoke()}


def time_pattern(runs, ids_list, repeats, warmup=3, check=True):
    names = list(runs)
    threshold = np.float32(0.0)
    for _ in range(warmup):
        for ids in ids_list:
            for name in names:
                runs[name](ids, threshold)
    # Wall time (what a user waits) and the thread's CPU time (what the run
    # costs, blind to the time the OS gives other processes on a busy machine).
    per_token = {clock: {name: [] for name in names} for clock in ("wall", "cpu")}
    ratios = {"wall": [], "cpu": []}
    for r in range(repeats):
        totals = {clock: dict.fromkeys(names, 0.0) for clock in ("wall", "cpu")}
        for k, ids in enumerate(ids_list):
            order = names if (r + k) % 2 == 0 else names[::-1]
            for name in order:
                cpu, wall = time.thread_time(), time.perf_counter()
                runs[name](ids, threshold)
                wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
                for clock, seconds in (("wall", wall), ("cpu", cpu)):
                    totals[clock][name] += seconds
                    per_token[clock][name].append(seconds / ids.shape[1] * 1e6)
        for clock in ratios:
            ratios[clock].append(totals[clock]["python_interpreter"] / max(totals[clock]["litert_c_api"], 1e-9))
    worst = None
    for ids in ids_list if check else []:
        a = runs["python_interpreter"](ids, threshold)["logits"]
        b = runs["litert_c_api"](ids, threshold)["logits"]
        worst = max(worst or 0.0, float(np.max(np.abs(a - b))))
    return {
        "median_us_per_token": {n: float(np.median(v)) for n, v in per_token["wall"].items()},
        "p90_us_per_token": {n: float(np.percentile(v, 90)) for n, v in per_token["wall"].items()},
        "speedup_c_api": float(np.median(ratios["wall"])),
        "cpu_median_us_per_token": {n: float(np.median(v)) for n, v in per_token["cpu"].items()},
        "cpu_speedup_c_api": float(np.median(ratios["cpu"])),
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
            path = export_lstm(d, folder)
            runs = runners(path)
            for pattern, lengths in PATTERNS.items():
                ids_list = [rng.integers(1, V, size=(1, n)).astype(np.int32) for n in lengths]
                rows.append({"units": d, "inputs": pattern, **time_pattern(runs, ids_list, repeats)})
            # the run alone: no input or output copies, no Python per input
            fixed = [np.zeros((1, T), np.int32)] * 4
            rows.append(
                {
                    "units": d,
                    "inputs": f"run only ({T}, inputs set once)",
                    **time_pattern(invoke_only(path, T), fixed, repeats, check=False),
                }
            )
    from keras_skim.runtime.litert_runner import load

    report = {
        "benchmark": "capi_runtime_speed",
        "model": f"builtin export of Embedding({V}, {E}) -> LSTM(d) -> Dense(2), random weights",
        "threads": 1,
        "batch": 1,
        "repeats": repeats,
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
        f"- one signature call (inputs, run, outputs), batch 1, 1 thread, interleaved, {repeats} repeats of 4 texts; "
        "us/token: medians; speed-up = median over repeats of (Interpreter time / C API time), > 1: the C API path "
        "is faster; wall-clock time, and the calling thread's CPU time (blind to other processes on a busy machine)",
        f"- machine: {report['machine']['platform']}, {report['machine']['cpu_count']} CPUs, "
        f"load average at the end {report['machine']['load_average_at_end']}",
        f"- versions: {', '.join(f'{k} {v}' for k, v in report['versions'].items())}",
        f"- command: `{report['command']}` ({report['seconds']} s)",
        "",
        "| d | inputs | Interpreter us/token | C API us/token | speed-up of the C API | "
        "CPU time: Interpreter | C API | speed-up | max logit difference |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        m, c = r["median_us_per_token"], r["cpu_median_us_per_token"]
        diff = "-" if r["max_logit_difference"] is None else f"{r['max_logit_difference']:.1e}"
        lines.append(
            f"| {r['units']} | {r['inputs']} | {m['python_interpreter']:.2f} | {m['litert_c_api']:.2f} | "
            f"{r['speedup_c_api']:.3f} | {c['python_interpreter']:.2f} | {c['litert_c_api']:.2f} | "
            f"{r['cpu_speedup_c_api']:.3f} | {diff} |"
        )
    cpu = [r["cpu_speedup_c_api"] for r in rows]
    slower = sum(c < 1.0 for c in cpu)
    lines += [
        "",
        f"CPU-time speed-up of the C API route: {min(cpu):.3f} to {max(cpu):.3f}, median "
        f"{float(np.median(cpu)):.3f}, below 1 on {slower} of {len(cpu)} rows."
        + (
            " So keras_skim.runtime keeps builtin-only models on the Python Interpreter (models with custom "
            "ops go through the C API, the only way to register them)."
            if np.median(cpu) < 1.0
            else ""
        ),
    ]
    litert_report.write("capi_runtime_speed", report, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
