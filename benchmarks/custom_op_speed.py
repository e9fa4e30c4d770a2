"""Per-token latency of the `KerasSkimLSTM` custom-op export vs a Keras LSTM
converted with the default TFLite converter.

Both models: V=1000, e=50, T=200 tokens, batch 1, `num_threads=1`, LiteRT
(ai-edge-litert) interpreter. The two interpreters are timed interleaved (one
invoke of each per round, the machine is shared), median of `--runs` rounds
after warm-up. The skim model is a Keras `RNN(SkimLSTMCell(d, 10))` model
with its initial weights, written by
`keras_skim.export.custom_op_backend.write_custom_op_model`; its threshold is
set (by bisection on a NumPy reference, then moved to the middle of the gap
between neighbouring gate probabilities) to give the target skim rate.

    python benchmarks/custom_op_speed.py [--runs 30] [--quick]

Writes benchmarks/results/custom_op_speed.{json,md}.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402

V, E, T, SMALL = 1000, 50, 200, 10
CONFIGS = [(100, [0.0, 0.85]), (256, [0.0, 0.80, 0.95]), (512, [0.0, 0.80, 0.95])]
HERE = os.path.dirname(os.path.abspath(__file__))


def sigmoid(x):
    return (1.0 / (1.0 + np.exp(-x))).astype(np.float32)


def reference(w, tokens, threshold):
    """float32 NumPy Skim-LSTM (gates i,f,c,o): (h, read mask, read probabilities)."""
    d, ds = w["U"].shape[0], w["Us"].shape[1] // 4
    proj = w["emb"][tokens] @ np.concatenate([w["W"], w["Ws"], w["Wg"]], 1) + np.concatenate(
        [w["b"], w["bs"], w["bg"]])
    h = np.zeros(d, np.float32)
    c = np.zeros(d, np.float32)
    mask = np.zeros(len(tokens), np.float32)
    probs = np.zeros(len(tokens), np.float32)
    for t, p in enumerate(proj.astype(np.float32)):
        logit = p[4 * d + 4 * ds:] + h @ w["Ug"]
        probs[t] = sigmoid(np.float32(logit[0] - logit[1]))
        read = probs[t] >= threshold
        if read:
            z, n = p[:4 * d] + h @ w["U"], d
        else:
            z, n = p[4 * d:4 * d + 4 * ds] + h @ w["Us"], ds
        i, f, g, o = (z[k * n:(k + 1) * n] for k in range(4))
        cn = sigmoid(f) * c[:n] + sigmoid(i) * np.tanh(g)
        c, h = c.copy(), h.copy()
        c[:n] = cn
        h[:n] = sigmoid(o) * np.tanh(cn)
        mask[t] = read
    return h, mask, probs


def threshold_for_skim(w, tokens, rate):
    if rate <= 0:
        return np.float32(0.0)
    lo, hi = 0.0, 1.0
    for _ in range(30):
        mid = (lo + hi) / 2
        _, m, _ = reference(w, tokens, np.float32(mid))
        lo, hi = (mid, hi) if 1 - m.mean() < rate else (lo, mid)
    _, m, p = reference(w, tokens, np.float32(hi))
    below = p[m == 0].max() if (m == 0).any() else 0.0
    above = p[m == 1].min() if (m == 1).any() else 1.0
    return np.float32((below + above) / 2)


def lstm_interpreter(d, folder, tokens):
    import keras
    import tensorflow as tf
    from ai_edge_litert.interpreter import Interpreter

    model = keras.Sequential([keras.Input((T,), dtype="int32", batch_size=1),
                              keras.layers.Embedding(V, E), keras.layers.LSTM(d),
                              keras.layers.Dense(2)])
    path = os.path.join(folder, f"lstm{d}.tflite")
    with open(path, "wb") as f:
        f.write(tf.lite.TFLiteConverter.from_keras_model(model).convert())
    it = Interpreter(model_path=path, num_threads=1)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], tokens[None])
    return it


def skim_model(d):
    import keras

    from keras_skim import SkimLSTMCell

    keras.utils.set_random_seed(d)
    inp = keras.Input((T,), dtype="int32")
    x = keras.layers.Embedding(V, E, mask_zero=True)(inp)
    x = keras.layers.RNN(SkimLSTMCell(d, SMALL))(x)
    return keras.Model(inp, keras.layers.Dense(2)(x))


def skim_interpreter(path, tokens, threshold):
    from keras_skim.litert_ops import make_interpreter

    it = make_interpreter(path, num_threads=1)
    it.allocate_tensors()
    index = {t["name"]: t["index"] for t in it.get_input_details()}
    it.set_tensor(next(i for n, i in index.items() if "token_ids" in n), tokens[None])
    it.set_tensor(next(i for n, i in index.items() if "threshold" in n), np.array(threshold, np.float32))
    return it


def time_interleaved(interpreters, runs, warmup=5):
    for it in interpreters:
        for _ in range(warmup):
            it.invoke()
    times = [[] for _ in interpreters]
    for _ in range(runs):
        for k, it in enumerate(interpreters):
            t0 = time.perf_counter()
            it.invoke()
            times[k].append(time.perf_counter() - t0)
    return [float(np.median(t)) / T * 1e6 for t in times], [float(np.min(t)) / T * 1e6 for t in times]


def machine_info():
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    try:
        gxx = subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        gxx = "not found"
    import keras
    import tensorflow as tf
    from importlib.metadata import version

    return {
        "cpu": cpu, "cores": os.cpu_count(), "platform": platform.platform(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(), "numpy": np.__version__, "tensorflow": tf.__version__,
        "keras": keras.__version__, "ai_edge_litert": version("ai-edge-litert"), "g++": gxx,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--quick", action="store_true", help="d=100 only")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "custom_op_speed"))
    a = ap.parse_args()
    if a.runs < 20:
        ap.error("--runs must be >= 20")
    from keras_skim.analysis.flops import flop_report
    from keras_skim.export.custom_op_backend import read_model, write_custom_op_model
    from keras_skim.litert_ops import library_path

    library_path()  # build once, outside the timings
    tokens = np.random.default_rng(1).integers(1, V, T).astype(np.int32)
    rows = []
    started = time.time()
    with tempfile.TemporaryDirectory() as folder:
        for d, rates in CONFIGS[:1] if a.quick else CONFIGS:
            base = lstm_interpreter(d, folder, tokens)
            model = skim_model(d)
            w = read_model(model)["weights"]
            path = write_custom_op_model(model, os.path.join(folder, f"skim{d}.tflite"), 0.5, length=T)
            for rate in rates:
                threshold = threshold_for_skim(w, tokens, rate)
                h_ref, mask_ref, _ = reference(w, tokens, threshold)
                skim = skim_interpreter(path, tokens, threshold)
                skim.invoke()
                out = {t["name"]: skim.get_tensor(t["index"]) for t in skim.get_output_details()}
                mask = next(v for k, v in out.items() if "read_mask" in k).reshape(-1)
                logits = next(v for k, v in out.items() if "logits" in k).reshape(-1)
                logits_ref = h_ref @ w["Wd"] + w["bd"]
                (lstm_us, skim_us), (lstm_min, skim_min) = time_interleaved([base, skim], a.runs)
                measured = 1.0 - float(mask.mean())
                flop_r = flop_report("lstm", d, SMALL, E, measured)["flop_r"]
                speedup = lstm_us / skim_us
                row = dict(d=d, small_units=SMALL, skim_target=rate, skim_rate=round(measured, 3),
                           threshold=float(threshold), lstm_us_per_token=round(lstm_us, 2),
                           custom_op_us_per_token=round(skim_us, 2), speedup=round(speedup, 2),
                           flop_r=round(flop_r, 2), speedup_over_flop_r=round(speedup / flop_r, 2),
                           speedup_min=round(lstm_min / skim_min, 2),
                           mask_mismatches_vs_numpy=int((mask != mask_ref).sum()),
                           logits_max_abs_diff_vs_numpy=float(np.abs(logits - logits_ref).max()))
                rows.append(row)
                print(json.dumps(row), flush=True)
                del skim
            del base
    command = "python benchmarks/custom_op_speed.py " + " ".join(sys.argv[1:])
    result = dict(benchmark="custom_op_speed", command=command.strip(), machine=machine_info(),
                  setup=dict(vocabulary=V, embedding=E, tokens=T, batch=1, num_threads=1,
                             runs=a.runs, warmup=5, timing="interleaved rounds, median",
                             baseline="keras.layers.LSTM(d), TFLiteConverter.from_keras_model defaults",
                             skim="RNN(SkimLSTMCell(d, 10)) -> KerasSkimLSTM custom op"),
                  seconds=round(time.time() - started, 1), rows=rows)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out + ".json", "w") as f:
        json.dump(result, f, indent=2)
    m = result["machine"]
    lines = [
        "# KerasSkimLSTM custom op vs Keras LSTM (default TFLite converter)", "",
        f"Command: `{result['command']}`  ",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['platform']}, load average at end {m['load_average']}  ",
        f"Versions: Python {m['python']}, NumPy {m['numpy']}, TensorFlow {m['tensorflow']}, "
        f"Keras {m['keras']}, ai-edge-litert {m['ai_edge_litert']}, {m['g++']}  ",
        f"Setup: V={V}, e={E}, T={T} tokens, batch 1, num_threads=1, interleaved, median of "
        f"{a.runs} rounds after 5 warm-up invokes; d'={SMALL}.", "",
        "| d | d' | skim rate | LSTM us/token | custom op us/token | speed-up | Flop-R | speed-up / Flop-R | speed-up (min) | mask mismatches |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['d']} | {r['small_units']} | {r['skim_rate']:.1%} | {r['lstm_us_per_token']} | "
            f"{r['custom_op_us_per_token']} | {r['speedup']}x | {r['flop_r']} | {r['speedup_over_flop_r']} | "
            f"{r['speedup_min']}x | {r['mask_mismatches_vs_numpy']} |")
    lines += ["", "Flop-R: `keras_skim.analysis.flops.flop_report(\"lstm\", d, 10, 50, skim_rate)[\"flop_r\"]` "
              "at the measured skim rate. Speed-up (min): ratio of the best round of each model.", ""]
    with open(a.out + ".md", "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
