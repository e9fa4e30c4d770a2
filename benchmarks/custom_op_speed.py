"""Per-token latency of the `KerasSkimLSTM` custom-op export against the
strongest LSTM a user can ship: our own builtin export of a Keras LSTM of
the same size (input projections hoisted out of the loop, XNNPACK on).

Models: V=1000, e=50, d'=10, d = 100, 256, 512, random (initial) weights;
one random text of T=200 tokens, batch 1, `num_threads=1`, LiteRT
(ai-edge-litert). For each d and target skim rate (0: threshold 0, every
token read; 100%: threshold 1.5) the runtime threshold is found by
bisection on the op itself and the measured rate is reported. Timed in one
process, interleaved: each round invokes every model once, in an order that
alternates between rounds; medians of `--runs` rounds after warm-up.

Timed models, each against the LSTM export of the same d:
  * custom op: `write_custom_op_model` (default: the op projects the
    embedding of each token itself, for the cell that runs on it);
  * custom op, folded rows: `fold=True` (per-word input terms; a read step
    streams only the recurrent weights; the file is (4d+4d'+1)/e times the
    embedding);
  * builtin skim graph: `keras-skim export` of the Skim-LSTM (builtin ops);
  * stock LSTM: `TFLiteConverter.from_keras_model` of the Keras LSTM.

Targets (issue 11): reading every token >= 1.0x; at 80% and 95% skim
speed-up >= 0.85 x Flop-R (d=256, 512), >= 0.75 x Flop-R (d=100); at 100%
skim the per-token time within 2x of the skim step's FLOPs at the read
step's FLOP rate (the custom op's own all-read row of the same d).

    python benchmarks/custom_op_speed.py [--runs 60] [--quick | --units D ...] [--cpu 1]

Writes benchmarks/results/custom_op_speed.{json,md} (or --out STEM).
"""

import argparse
import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import litert_report  # noqa: E402
import numpy as np  # noqa: E402

V, E, T, SMALL = 1000, 50, 200, 10
RATES = [0.0, 0.80, 0.95, 1.0]
UNITS = [100, 256, 512]
FLOP_TARGET = {100: 0.75, 256: 0.85, 512: 0.85}


def classifier(rnn, fixed):
    """Input(int) -> Embedding(V, E, mask_zero) -> rnn -> Dense(2); batch 1
    and length T when `fixed`."""
    import keras

    inp = keras.Input((T,) if fixed else (None,), dtype="int32", batch_size=1 if fixed else None)
    x = keras.layers.Embedding(V, E, mask_zero=True)(inp)
    return keras.Model(inp, keras.layers.Dense(2)(rnn(x)))


def keras_models(d):
    import keras

    from keras_skim import SkimLSTMCell

    keras.utils.set_random_seed(d)
    skim = classifier(keras.layers.RNN(SkimLSTMCell(d, SMALL)), fixed=True)
    keras.utils.set_random_seed(d + 1)
    lstm = classifier(keras.layers.LSTM(d), fixed=False)
    stock = classifier(keras.layers.LSTM(d), fixed=True)
    stock.set_weights(lstm.get_weights())
    return skim, lstm, stock


def builtin_export(model):
    """Bytes of the builtin-ops export, as `keras-skim export` converts it."""
    from keras_skim.export.graph_builder import build_module, convert
    from keras_skim.export.plan import plan_model

    return convert(build_module(plan_model(model)))


def stock_export(model):
    import tensorflow as tf

    return tf.lite.TFLiteConverter.from_keras_model(model).convert()


class Timed:
    """One exported model and one text: `invoke()` runs the text through the
    runtime's signature runner (inputs in, run, outputs out), as
    `keras-skim bench` and the app do: custom-op models through the LiteRT C
    API, builtin-only ones through ai-edge-litert's Interpreter."""

    def __init__(self, name, content, tokens, threshold=None):
        from keras_skim.runtime.interpreter_loader import make_interpreter

        self.name = name
        self.signature = make_interpreter(model_content=content, num_threads=1).get_signature_runner("serving_default")
        # By dtype, not name: the stock converter names its input otherwise
        # and has no threshold.
        details = self.signature.get_input_details()
        self.int_input = next(n for n, t in details.items() if np.dtype(t["dtype"]) == np.int32)
        self.float_inputs = [n for n, t in details.items() if np.dtype(t["dtype"]) == np.float32]
        self.tokens = np.asarray(tokens, np.int32)[None]
        self.set_threshold(0.0 if threshold is None else threshold)

    def set_threshold(self, threshold):
        self.threshold = threshold
        self.inputs = {self.int_input: self.tokens}
        self.inputs.update({n: np.array(threshold, np.float32) for n in self.float_inputs})

    def read_mask(self):
        """The read mask at the current threshold."""
        return np.asarray(self.invoke()["read_mask"], np.float32).reshape(-1)

    def invoke(self):
        return self.signature(**self.inputs)


def threshold_for(op, rate):
    """A threshold whose measured skim rate on the text is closest to
    `rate`, in the middle of the range of thresholds that give the same
    decisions (never at a knife edge, where rounding could decide)."""
    if rate <= 0.0:
        return 0.0
    if rate >= 1.0:
        return 1.5

    def mask(threshold):
        op.set_threshold(threshold)
        return op.read_mask()

    lo, hi = 0.0, 1.0
    for _ in range(30):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if 1.0 - mask(mid).mean() < rate else (lo, mid)
    chosen = mask(hi)
    same, other = hi, 1.0  # the decisions change again somewhere in (same, other]
    for _ in range(30):
        mid = (same + other) / 2
        same, other = (mid, other) if np.array_equal(mask(mid), chosen) else (same, mid)
    return (hi + same) / 2


def time_interleaved(models, runs, warmup=5):
    """Median seconds per invoke of each model over `runs` rounds; each round
    runs every model once, in an order that alternates between rounds."""
    for m in models:
        for _ in range(warmup):
            m.invoke()
    times = [[] for _ in models]
    for r in range(runs):
        order = range(len(models)) if r % 2 == 0 else reversed(range(len(models)))
        for k in order:
            t0 = time.perf_counter()
            models[k].invoke()
            times[k].append(time.perf_counter() - t0)
    return [np.asarray(t) for t in times]


def arguments(description, stem):
    """The command line of a custom-op speed benchmark (this one,
    skim_gru_op_speed.py): --runs, --quick, --cpu (pinned here), --out."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--runs", type=int, default=60, help="timed rounds per row (default 60)")
    ap.add_argument("--quick", action="store_true", help="d=100 only")
    ap.add_argument("--units", type=int, nargs="+", default=None, help="these d only (of 100, 256, 512)")
    ap.add_argument("--cpu", type=int, default=None, help="pin the process to this CPU")
    ap.add_argument("--out", default=os.path.join(litert_report.RESULTS, stem), help="output path without extension")
    a = ap.parse_args()
    a.units = _chosen_units(ap, a)
    if a.runs < 20:
        ap.error("--runs must be >= 20")
    if a.cpu is not None:
        os.sched_setaffinity(0, {a.cpu})
    return a


def _chosen_units(parser, a):
    """The d values to measure: --units, else d=100 for --quick, else all."""
    if a.units is None:
        return UNITS[:1] if a.quick else UNITS
    if not set(a.units) <= set(UNITS):
        parser.error(f"--units takes values of {UNITS}")
    return a.units


def report_record(name, runs, load_before, started, rows, baseline):
    """The JSON record of a custom-op speed benchmark's run."""
    return {
        "benchmark": name,
        "command": litert_report.command(),
        "machine": litert_report.timed_machine(load_before),
        "versions": litert_report.versions(),
        "setup": dict(
            vocabulary=V,
            embedding=E,
            tokens=T,
            small_units=SMALL,
            batch=1,
            num_threads=1,
            runs=runs,
            warmup=5,
            timing="interleaved rounds (alternating order), medians",
            baseline=baseline,
        ),
        "seconds": round(time.time() - started, 1),
        "rows": rows,
    }


def markdown_head(title, report):
    """The title and the lines on the run (command, machine, versions,
    setup, baseline) of a custom-op speed benchmark's Markdown."""
    m, s = report["machine"], report["setup"]
    return [
        f"# {title}",
        "",
        f"- command: `{report['command']}`",
        f"- machine: {m['platform']}, {m['processor']}, {m['cpu_count']} CPUs shared with other jobs; "
        f"load average {m['load_average_at_start']} at start, {m['load_average_at_end']} at end; "
        f"nice {m['nice']}, CPUs {m['cpus_allowed']}",
        f"- versions: {', '.join(f'{k} {v}' for k, v in report['versions'].items())}",
        f"- setup: V={s['vocabulary']}, e={s['embedding']}, d'={s['small_units']}, T={s['tokens']} tokens, "
        f"batch 1, 1 thread, random weights, {s['runs']} interleaved rounds, medians",
        f"- baseline: {s['baseline']}; speed-up = median over rounds of baseline time / model time",
        "",
    ]


def file_sizes(report):
    """The Markdown line of the models' file sizes (rows with `file_bytes`)."""
    return "File sizes (bytes): " + "; ".join(
        f"d={r['d']}: " + ", ".join(f"{k} {v}" for k, v in r["file_bytes"].items())
        for r in report["rows"]
        if "file_bytes" in r
    )


def main():
    a = arguments(__doc__.splitlines()[0], "custom_op_speed")
    from keras_skim.analysis.flops import flop_report
    from keras_skim.export.custom_op_backend import custom_op_flatbuffer, read_model
    from keras_skim.litert_ops import library_path
    from keras_skim.models.skim_rnn.skim_op_reference import op_reference
    from keras_skim.models.skim_rnn.skim_op_weights import quantized_weights

    library_path()  # build once, outside the timings
    tokens = np.random.default_rng(1).integers(1, V, T).astype(np.int32)
    load_before = [round(x, 2) for x in os.getloadavg()]
    started = time.time()
    rows = []
    for d in a.units:
        skim, lstm, stock = keras_models(d)
        info = read_model(skim)
        ops = quantized_weights(info)
        contents = {
            "lstm": builtin_export(lstm),
            "op": custom_op_flatbuffer(skim, 0.5, T, fold=False),
            "op_folded": custom_op_flatbuffer(skim, 0.5, T, fold=True),
            "builtin_skim": builtin_export(skim),
            "stock_lstm": stock_export(stock),
        }
        sizes = {k: len(v) for k, v in contents.items()}
        base = Timed("lstm", contents["lstm"], tokens)
        stock_it = Timed("stock_lstm", contents["stock_lstm"], tokens)
        read_us = None
        for rate in RATES:
            op = Timed("op", contents["op"], tokens)
            threshold = threshold_for(op, rate)
            models = [
                base,
                op,
                Timed("op_folded", contents["op_folded"], tokens, threshold),
                Timed("builtin_skim", contents["builtin_skim"], tokens, threshold),
                stock_it,
            ]
            op.set_threshold(threshold)
            mask = op.read_mask()
            _, want = op_reference(info, ops, tokens, threshold)
            mismatches = int(np.sum(mask != want))
            for m in models[2:4]:  # the other skim exports decide the same
                mismatches += int(np.sum(m.read_mask() != want))
            times = time_interleaved(models, a.runs)
            us = {m.name: float(np.median(t)) / T * 1e6 for m, t in zip(models, times)}
            ratios = {m.name: float(np.median(times[0] / t)) for m, t in zip(models, times)}
            skim_rate = 1.0 - float(mask.mean())
            flops = flop_report("lstm", d, SMALL, E, skim_rate)
            if rate == 0.0:
                read_us = us["op"]
            row = dict(
                d=d,
                small_units=SMALL,
                target_skim=rate,
                skim_rate=round(skim_rate, 4),
                threshold=float(threshold),
                flop_r=round(flops["flop_r"], 3),
                us_per_token={k: round(v, 3) for k, v in us.items()},
                speedup_vs_lstm_export={k: round(v, 3) for k, v in ratios.items() if k != "lstm"},
                mask_mismatches_vs_reference=mismatches,
            )
            row["op_speedup_over_flop_r"] = round(ratios["op"] / flops["flop_r"], 3)
            row["op_folded_speedup_over_flop_r"] = round(ratios["op_folded"] / flops["flop_r"], 3)
            if rate == 0.0:
                row["target"] = "custom op >= 1.0x"
                row["met"] = ratios["op"] >= 1.0
            elif rate < 1.0:
                row["target"] = f"custom op >= {FLOP_TARGET[d]} x Flop-R"
                row["met"] = ratios["op"] >= FLOP_TARGET[d] * flops["flop_r"]
            else:
                # The skim step's FLOPs at the read step's FLOP rate.
                floor = read_us * flops["skim_flops"] / flops["read_flops"]
                row["flop_floor_us_per_token"] = round(floor, 3)
                row["op_over_flop_floor"] = round(us["op"] / floor, 3)
                row["target"] = "custom op <= 2x FLOP floor"
                row["met"] = us["op"] <= 2.0 * floor
            rows.append(row)
            print(json.dumps(row), flush=True)
        rows[-len(RATES)]["file_bytes"] = sizes
    baseline = "keras.layers.LSTM(d) exported by keras-skim (builtin ops, hoisted input projections, XNNPACK on)"
    report = report_record("custom_op_speed", a.runs, load_before, started, rows, baseline)
    litert_report.write_files(a.out, report, _markdown(report))


def _markdown(report):
    lines = markdown_head("KerasSkimLSTM custom op vs the LSTM export (builtin ops, XNNPACK)", report) + [
        "| d | skim rate | Flop-R | LSTM export us/tok | custom op us/tok | speed-up | / Flop-R | target | met |"
        " folded op speed-up | builtin skim graph speed-up | stock LSTM speed-up |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---:|",
    ]
    for r in report["rows"]:
        us, x = r["us_per_token"], r["speedup_vs_lstm_export"]
        target = r["target"]
        if "op_over_flop_floor" in r:
            target += f" (floor {r['flop_floor_us_per_token']} us: {r['op_over_flop_floor']}x)"
        lines.append(
            f"| {r['d']} | {r['skim_rate']:.1%} | {r['flop_r']:.2f} | {us['lstm']:.2f} | {us['op']:.2f} | "
            f"{x['op']:.2f}x | {r['op_speedup_over_flop_r']:.2f} | {target} | {'yes' if r['met'] else 'NO'} | "
            f"{x['op_folded']:.2f}x | {x['builtin_skim']:.2f}x | {x['stock_lstm']:.2f}x |"
        )
    lines += [
        "",
        'Flop-R: `keras_skim.analysis.flops.flop_report("lstm", d, 10, 50, skim_rate)` at the measured rate. '
        "The FLOP floor at 100% skim is the skim step's FLOPs (gate, small cell) at the FLOP rate of the custom op's "
        "own all-read row. `stock LSTM`: `TFLiteConverter.from_keras_model` (a WHILE loop of unfused ops); a "
        "speed-up below 1 means it is slower than the baseline. Every row's read decisions (custom op, folded op, "
        "builtin skim graph) match a NumPy reference: mismatches in the JSON.",
        "",
        file_sizes(report),
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
