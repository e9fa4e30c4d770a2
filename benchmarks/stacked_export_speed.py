"""Speed of stacked bidirectional Skim-LSTM exports against the same stack of LSTMs.

The Skim-RNN paper's question-answering encoder shape (Seo et al. 2018,
LSTM+Attention: 2 layers of bidirectional Skim-LSTM, d=100, d'=20), as a
text classifier: `Embedding -> Bidirectional(SkimLSTM(d, d'),
return_sequences=True) -> Bidirectional(SkimLSTM(d, d')) -> Dense(2)`,
random weights, exported by `keras_skim.export` (the builtin graph: the
custom ops run one forward layer, so `--backend auto` falls back to it),
against the same stack with `keras.layers.LSTM(d)` exported the same way,
at d = 32 (d' = 4) and d = 100 (d' = 20). The runtime threshold is picked
per target skim rate (mean over every layer and direction, measured on the
benchmark inputs and reported). For scale, the one-layer forward Skim-LSTM
of the same d in both backends (the custom op and the builtin graph)
against the one-layer LSTM export, in the same run.

Timing: LiteRT through the TensorFlow-free runtime, 1 thread, batch 1,
200-token texts, runs of the model and its baseline interleaved; medians of
the per-token time over samples x repeats.

    python benchmarks/stacked_export_speed.py [--quick]

Writes benchmarks/results/stacked_export_speed.json and .md.
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
SIZES = [(32, 4), (100, 20)]
TARGETS = [None, 0.8, 1.0]  # None: every token read (threshold 0)


def build(d, ds, skim, layers, seed):
    import keras

    from keras_skim import SkimLSTM

    keras.utils.set_random_seed(seed)
    inp = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(V, E, mask_zero=True)(inp)
    for index in range(layers):
        sequences = index < layers - 1
        rnn = SkimLSTM(d, ds, return_sequences=sequences) if skim else keras.layers.LSTM(d, return_sequences=sequences)
        x = keras.layers.Bidirectional(rnn)(x) if layers > 1 else rnn(x)
    return keras.Model(inp, keras.layers.Dense(2)(x))


def skim_rate(runner, ids_list, threshold):
    """Skimmed share of the tokens over every layer's and direction's mask."""
    read = total = 0
    for ids in ids_list:
        for mask in runner.read_masks(runner.run_ids(ids, threshold)).values():
            read += int(mask.sum())
            total += mask.size
    return 1.0 - read / total


def threshold_for(runner, ids_list, target):
    if target is None:
        return 0.0
    if target >= 1.0:
        return 1.5
    lo, hi = 0.0, 1.0
    for _ in range(14):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if skim_rate(runner, ids_list, mid) < target else (lo, mid)
    return hi


def time_pair(model, baseline, ids_list, threshold, repeats):
    """Median us per token of `model` at `threshold` and of `baseline`, interleaved."""
    runs = {"model": [], "baseline": []}
    for runner in (model, baseline):
        runner.invoke(*runner.prepare(ids_list[0], threshold))  # warm up
    for _ in range(repeats):
        for ids in ids_list:
            for runner, key in ((model, "model"), (baseline, "baseline")):
                inputs = runner.prepare(ids, threshold)
                start = time.perf_counter()
                runner.invoke(*inputs)
                runs[key].append((time.perf_counter() - start) / len(ids) * 1e6)
    return float(np.median(runs["model"])), float(np.median(runs["baseline"]))


def export(model, tmp, name, backend="builtin"):
    from keras_skim.export.exporter import export_model
    from keras_skim.runtime.runner import SkimRunner

    path = os.path.join(tmp, name + ".keras")
    model.save(path)
    result = export_model(path, os.path.join(tmp, name), parity_samples=2, backend=backend)
    return SkimRunner(os.path.join(tmp, name)), result.parity.message


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="d=32 only, fewer repeats")
    args = parser.parse_args()
    sizes = SIZES[:1] if args.quick else SIZES
    repeats = 3 if args.quick else args.repeats
    load_at_start = [round(x, 2) for x in os.getloadavg()]
    rng = np.random.default_rng(0)
    ids_list = [rng.integers(1, V, size=T).astype(np.int32) for _ in range(args.samples)]
    rows, parity = [], {}
    started = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        for d, ds in sizes:
            runners = {}
            for name, skim, layers, backend in (
                ("stack_skim", True, 2, "builtin"),
                ("stack_lstm", False, 2, "builtin"),
                ("one_skim_custom", True, 1, "custom"),
                ("one_skim_builtin", True, 1, "builtin"),
                ("one_lstm", False, 1, "builtin"),
            ):
                model = build(d, ds, skim, layers, seed=d)  # one seed: the same weights in both backends
                runners[name], parity[f"{name}_{d}"] = export(model, tmp, f"{name}{d}", backend)
            for model_name, base_name, shape in (
                ("stack_skim", "stack_lstm", "2-layer bidirectional"),
                ("one_skim_custom", "one_lstm", "1 forward layer, custom op"),
                ("one_skim_builtin", "one_lstm", "1 forward layer, builtin"),
            ):
                model, baseline = runners[model_name], runners[base_name]
                for target in TARGETS:
                    threshold = threshold_for(model, ids_list, target)
                    model_us, base_us = time_pair(model, baseline, ids_list, threshold, repeats)
                    row = {
                        "shape": shape,
                        "backend": model.backend,
                        "units": d,
                        "small_units": ds,
                        "target_skim_rate": target,
                        "threshold": threshold,
                        "skim_rate": skim_rate(model, ids_list, threshold),
                        "skim_us_per_token": model_us,
                        "lstm_export_us_per_token": base_us,
                        "speedup_vs_lstm_export": base_us / model_us,
                    }
                    rows.append(row)
                    print(row, flush=True)
    report = {
        "machine": litert_report.timed_machine(load_at_start),
        "versions": litert_report.versions(),
        "command": litert_report.command(),
        "setup": {
            "vocabulary": V,
            "embedding_dim": E,
            "tokens": T,
            "samples": args.samples,
            "repeats": repeats,
            "threads": 1,
            "batch": 1,
        },
        "parity": parity,
        "seconds": round(time.time() - started, 1),
        "rows": rows,
    }
    litert_report.write("stacked_export_speed", report, _markdown(report))


def _markdown(report):
    m = report["machine"]
    lines = [
        "# Stacked bidirectional Skim-LSTM exports against the same stack of LSTMs (LiteRT)",
        "",
        f"- machine: {m['platform']}, {m['processor']}, {m['cpu_count']} CPUs, shared: load average "
        f"{m['load_average_at_start']} at start, {m['load_average_at_end']} at end",
        f"- versions: {', '.join(f'{k} {v}' for k, v in report['versions'].items())}",
        f"- command: `{report['command']}`",
        f"- setup: {report['setup']}; medians of samples x repeats, model and baseline interleaved",
        "- `2-layer bidirectional`: Embedding -> Bidirectional(SkimLSTM(d, d'), return_sequences=True) -> "
        "Bidirectional(SkimLSTM(d, d')) -> Dense(2), the builtin graph (the custom ops run one forward "
        "layer: `--backend auto` exports a stack as this graph); baseline: the same stack of "
        "keras.layers.LSTM(d) exported by keras-skim. `1 forward layer`: the one-layer Skim-LSTM in each "
        "backend against the one-layer LSTM export, for scale.",
        "- skim rate: the share of skimmed tokens over every layer and direction (threshold 0: all read; 1.5: "
        "all skimmed).",
        "",
        "| shape | backend | d | d' | target skim | measured skim | skim us/tok | LSTM export us/tok | speed-up |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["rows"]:
        target = "all read" if r["target_skim_rate"] is None else f"{r['target_skim_rate']:.2f}"
        lines.append(
            f"| {r['shape']} | {r['backend']} | {r['units']} | {r['small_units']} | {target} | {r['skim_rate']:.3f} "
            f"| {r['skim_us_per_token']:.2f} | {r['lstm_export_us_per_token']:.2f} | "
            f"{r['speedup_vs_lstm_export']:.2f} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
