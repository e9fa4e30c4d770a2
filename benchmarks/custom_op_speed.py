"""Per-token latency of the `KerasSkimLSTM` custom-op export against two
baselines: the strongest LSTM a user can ship (our own builtin export of a
Keras LSTM of the same size: input projections hoisted out of the loop,
XNNPACK on), and the same op export reading every token (threshold 0).
The second gives the strict gain, skimming's own: what the op does better
than the LSTM export when both read everything is not in it (issue 36).

Models: V=1000, d'=10, random (initial) weights; d = 100, 256, 512 with
e=50 embeddings and d=256 with e=300, float32 and int8 (`quantize="int8"`:
int8 embedding and big-cell kernel); one random text of T=200 tokens, batch
1, `num_threads=1`, LiteRT (ai-edge-litert). For each model and target skim
rate (0: threshold 0, every token read; 100%: threshold 1.5) the runtime
threshold is found by bisection on the op itself and the measured rate is
reported. Timed in one process, interleaved: each round invokes every model
once, in an order that alternates between rounds; medians of `--runs`
rounds after warm-up. The op at threshold 0 and at the row's threshold are
the same interpreter (only the threshold input differs), so that they share
the packed weights; they are timed as a pair in rounds of their own, each
timed call after an untimed call of the same threshold (the steady state of
an app calling its model), not right after a model that emptied the cache.

Timed models of a row (float32, e=50 rows also time the last two):
  * LSTM export (the first baseline);
  * custom op reading every token (the second baseline, threshold 0);
  * custom op at the row's threshold (`write_custom_op_model`: the op
    projects the embedding of each token itself, for the cell that runs
    on it);
  * custom op, folded rows: `fold=True` (per-word input terms; a read step
    streams only the recurrent weights; the file is (4d+4d'+1)/e times the
    embedding), float32 or int8 as the row; its own strict pair (the folded
    op reading every token, then at the row's threshold) gives the folded
    strict gain, over the Flop-R of its own skim rate;
  * builtin skim graph: `keras-skim export` of the Skim-LSTM (builtin ops);
  * stock LSTM: `TFLiteConverter.from_keras_model` of the Keras LSTM.

Targets (issue 36): at 80% and 95% skim the strict gain (op at the
threshold against the op reading every token) >= 0.85 x Flop-R; reading
every token, the op >= 1.0x the LSTM export; at 100% skim the per-token
time within 2x of the skim step's FLOPs at the read step's FLOP rate (the
op's own all-read row of the same model).

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
# (d, e) of the models: the units with 50-d embeddings, and d=256 with the
# papers' 300-d GloVe size.
SHAPES = [(d, E) for d in UNITS] + [(256, 300)]
DTYPES = [None, "int8"]  # quantize= of the op export: float32, int8
STRICT_TARGET = 0.85  # strict gain / Flop-R at 80% and 95% skim


def classifier(rnn, fixed, e=E):
    """Input(int) -> Embedding(V, e, mask_zero) -> rnn -> Dense(2); batch 1
    and length T when `fixed`."""
    import keras

    inp = keras.Input((T,) if fixed else (None,), dtype="int32", batch_size=1 if fixed else None)
    x = keras.layers.Embedding(V, e, mask_zero=True)(inp)
    return keras.Model(inp, keras.layers.Dense(2)(rnn(x)))


def keras_models(d, e=E):
    import keras

    from keras_skim import SkimLSTMCell

    keras.utils.set_random_seed(d)
    skim = classifier(keras.layers.RNN(SkimLSTMCell(d, SMALL)), fixed=True, e=e)
    keras.utils.set_random_seed(d + 1)
    lstm = classifier(keras.layers.LSTM(d), fixed=False, e=e)
    stock = classifier(keras.layers.LSTM(d), fixed=True, e=e)
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

    def __init__(self, name, content, tokens, threshold=None, signature=None):
        from keras_skim.runtime.interpreter_loader import make_interpreter

        self.name = name
        if signature is None:
            signature = make_interpreter(model_content=content, num_threads=1).get_signature_runner("serving_default")
        self.signature = signature
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

    def at_threshold(self, name, threshold):
        """The same interpreter (weights, packed state, cache) called with
        another threshold, timed as `name`."""
        return Timed(name, None, self.tokens[0], threshold, signature=self.signature)

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


# What times an invoke: wall time by default; `--clock thread` counts this
# thread's CPU time (time.thread_time), which a call that another process
# preempts does not count, on a machine shared with other jobs.
CLOCKS = {"wall": time.perf_counter, "thread": time.thread_time}
CLOCK = ["wall"]


def time_interleaved(models, runs, warmup=5, untimed=0):
    """Seconds per invoke of each model (`CLOCK`) over `runs` rounds; each
    round runs every model once, in an order that alternates between rounds,
    each timed call after `untimed` calls of the same model (a model called
    again and again, as an app calls its one model, rather than right after
    another model that emptied the cache)."""
    clock = CLOCKS[CLOCK[0]]
    for m in models:
        for _ in range(warmup):
            m.invoke()
    times = [[] for _ in models]
    for r in range(runs):
        order = range(len(models)) if r % 2 == 0 else reversed(range(len(models)))
        for k in order:
            for _ in range(untimed):
                models[k].invoke()
            t0 = clock()
            models[k].invoke()
            times[k].append(clock() - t0)
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
    ap.add_argument(
        "--clock", choices=sorted(CLOCKS), default="wall", help="wall time (default) or this thread's CPU time"
    )
    a = ap.parse_args()
    CLOCK[0] = a.clock
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
            timing=f"interleaved rounds (alternating order), medians; clock: {CLOCK[0]}",
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
        f"batch 1, 1 thread, random weights, {s['runs']} rounds: {s['timing']}",
        f"- baseline: {s['baseline']}; speed-up = median over rounds of baseline time / model time",
        "",
    ]


def file_sizes(report):
    """The Markdown line of the models' file sizes (rows with `file_bytes`)."""
    return "File sizes (bytes): " + "; ".join(
        f"d={r['d']}"
        + (f", e={r['embedding']}, {r['dtype']}" if "dtype" in r else "")
        + ": "
        + ", ".join(f"{k} {v}" for k, v in r["file_bytes"].items())
        for r in report["rows"]
        if "file_bytes" in r
    )


def main():
    a = arguments(__doc__.splitlines()[0], "custom_op_speed")
    from keras_skim.litert_ops import library_path

    library_path()  # build once, outside the timings
    tokens = np.random.default_rng(1).integers(1, V, T).astype(np.int32)
    load_before = [round(x, 2) for x in os.getloadavg()]
    started = time.time()
    rows = []
    for d, e in [(d, e) for d, e in SHAPES if d in a.units]:
        for quantize in DTYPES:
            rows += measure(d, e, quantize, tokens, a.runs)
    baseline = (
        "keras.layers.LSTM(d) exported by keras-skim (builtin ops, hoisted input projections, XNNPACK on); "
        "and the same op export at threshold 0 (reading every token): the strict gain"
    )
    report = report_record("custom_op_speed", a.runs, load_before, started, rows, baseline)
    report["setup"].update(embedding="50 (and 300 at d=256)", dtypes=["float32", "int8"])
    litert_report.write_files(a.out, report, _markdown(report))


def exports(d, e, quantize):
    """(Keras Skim-LSTM, {name: .tflite bytes}) of one model: the LSTM export,
    the op, the folded op and, for float32 e=50, the builtin skim graph and
    the stock LSTM."""
    from keras_skim.export.custom_op_backend import custom_op_flatbuffer

    skim, lstm, stock = keras_models(d, e)
    contents = {
        "lstm": builtin_export(lstm),
        "op": custom_op_flatbuffer(skim, 0.5, T, fold=False, quantize=quantize),
        "op_folded": custom_op_flatbuffer(skim, 0.5, T, fold=True, quantize=quantize),
    }
    if quantize is None and e == E:
        contents.update(
            builtin_skim=builtin_export(skim),
            stock_lstm=stock_export(stock),
        )
    return skim, contents


def measure(d, e, quantize, tokens, runs):
    """The rows of one model (d, e, float32 or int8): one per target skim rate."""
    from keras_skim.export.custom_op_backend import read_model
    from keras_skim.models.skim_rnn.skim_op_reference import op_reference
    from keras_skim.models.skim_rnn.skim_op_weights import quantized_weights

    skim, contents = exports(d, e, quantize)
    info = read_model(skim)
    ops = quantized_weights(info, quantize=quantize)
    folded_ops = quantized_weights(info, fold=True, quantize=quantize)
    base = Timed("lstm", contents["lstm"], tokens)
    op = Timed("op", contents["op"], tokens)
    reading_all = op.at_threshold("op_all", 0.0)
    others = [Timed(n, contents[n], tokens) for n in ("op_folded", "builtin_skim", "stock_lstm") if n in contents]
    folded = others[0]
    folded_all = folded.at_threshold("op_folded_all", 0.0)
    rows, read_us = [], None
    for rate in RATES:
        threshold = threshold_for(op, rate)
        op.set_threshold(threshold)
        for m in others[:2]:  # the other skim exports run at the same threshold
            m.set_threshold(threshold)
        mask = op.read_mask()
        _, want = op_reference(info, ops, tokens, threshold)
        # The folded op against its own reference (int8: its rows are quantized folded).
        folded_mask = folded.read_mask()
        _, folded_want = op_reference(info, folded_ops, tokens, threshold)
        mismatches = int(np.sum(mask != want)) + int(np.sum(folded_mask != folded_want))
        mismatches += sum(int(np.sum(m.read_mask() != want)) for m in others[1:2])
        models = [base, op] + others
        times = time_interleaved(models, runs)
        # The strict pair on its own, each timed call after an untimed one
        # of the same threshold: next to the LSTM export, or right after the
        # op reading all (whose big cell fills the cache), a skimming call
        # would also time the refill of its own weights.
        pair = time_interleaved([reading_all, op], runs, untimed=1)
        folded_pair = time_interleaved([folded_all, folded], runs, untimed=1)
        row = _row(d, e, quantize, rate, threshold, mask, models, times, pair)
        _folded_strict(row, folded_pair, folded_mask)
        row["mask_mismatches_vs_reference"] = mismatches
        if rate == 0.0:
            read_us = row["us_per_token"]["op"]
        _target(row, read_us)
        rows.append(row)
        print(json.dumps(row), flush=True)
    rows[0]["file_bytes"] = {k: len(v) for k, v in contents.items()}
    return rows


def _row(d, e, quantize, rate, threshold, mask, models, times, pair):
    """A row's timings: us per token and the speed-ups over the LSTM export
    (`models`' `times`, the export first), and the strict gain (`pair`: the
    op reading every token, then the op at the threshold, timed together),
    each the median of the per-round ratios, and each over Flop-R."""
    from keras_skim.analysis.flops import flop_report

    us = {m.name: float(np.median(t)) / T * 1e6 for m, t in zip(models, times)}
    us["op_all"] = float(np.median(pair[0])) / T * 1e6
    us["op_in_pair"] = float(np.median(pair[1])) / T * 1e6
    ratios = {m.name: float(np.median(times[0] / t)) for m, t in zip(models, times)}
    skim_rate = 1.0 - float(mask.mean())
    flops = flop_report("lstm", d, SMALL, e, skim_rate)
    strict = float(np.median(pair[0] / pair[1]))
    return dict(
        d=d,
        embedding=e,
        dtype=quantize or "float32",
        small_units=SMALL,
        target_skim=rate,
        skim_rate=round(skim_rate, 4),
        threshold=float(threshold),
        flop_r=round(flops["flop_r"], 3),
        us_per_token={k: round(v, 3) for k, v in us.items()},
        speedup_vs_lstm_export={k: round(v, 3) for k, v in ratios.items() if k != "lstm"},
        op_speedup_over_flop_r=round(ratios["op"] / flops["flop_r"], 3),
        strict_gain=round(strict, 3),
        strict_gain_over_flop_r=round(strict / flops["flop_r"], 3),
        skim_flops=flops["skim_flops"],
        read_flops=flops["read_flops"],
    )


def _folded_strict(row, pair, mask):
    """The folded op's strict gain (`pair`: the folded op reading every
    token, then at the row's threshold; `mask`: its read mask there), the
    same measure as the op's, over the Flop-R of its own skim rate."""
    from keras_skim.analysis.flops import flop_report

    strict = float(np.median(pair[0] / pair[1]))
    skim_rate = 1.0 - float(mask.mean())
    flop_r = flop_report("lstm", row["d"], SMALL, row["embedding"], skim_rate)["flop_r"]
    row["folded_skim_rate"] = round(skim_rate, 4)
    row["us_per_token"]["op_folded_all"] = round(float(np.median(pair[0])) / T * 1e6, 3)
    row["us_per_token"]["op_folded_in_pair"] = round(float(np.median(pair[1])) / T * 1e6, 3)
    row["folded_strict_gain"] = round(strict, 3)
    row["folded_strict_gain_over_flop_r"] = round(strict / flop_r, 3)


def _target(row, read_us):
    """The row's target (issue 36) and whether it was met."""
    rate, flop_r = row["target_skim"], row["flop_r"]
    if rate == 0.0:
        row["target"] = "op reading all >= 1.0x LSTM export"
        row["met"] = row["speedup_vs_lstm_export"]["op"] >= 1.0
    elif rate < 1.0:
        row["target"] = f"strict gain >= {STRICT_TARGET} x Flop-R"
        row["met"] = row["strict_gain"] >= STRICT_TARGET * flop_r
        row["met_folded"] = row["folded_strict_gain_over_flop_r"] >= STRICT_TARGET
    else:
        # The skim step's FLOPs at the read step's FLOP rate.
        floor = read_us * row["skim_flops"] / row["read_flops"]
        row["flop_floor_us_per_token"] = round(floor, 3)
        row["op_over_flop_floor"] = round(row["us_per_token"]["op"] / floor, 3)
        row["target"] = "op <= 2x FLOP floor"
        row["met"] = row["us_per_token"]["op"] <= 2.0 * floor


def _markdown(report):
    lines = markdown_head("KerasSkimLSTM custom op: strict gain and the LSTM export (builtin ops, XNNPACK)", report)
    lines += [
        "| d | e | dtype | skim rate | Flop-R | LSTM export us/tok | op reading all us/tok | op us/tok (pair) | "
        "op us/tok | "
        "vs LSTM export | / Flop-R | strict gain | / Flop-R | target | met | folded op vs LSTM | "
        "folded strict gain | / Flop-R | met folded | builtin skim graph vs LSTM | stock LSTM vs LSTM |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---|---:|---:|",
    ]
    for r in report["rows"]:
        us, x = r["us_per_token"], r["speedup_vs_lstm_export"]
        target = r["target"]
        if "op_over_flop_floor" in r:
            target += f" (floor {r['flop_floor_us_per_token']} us: {r['op_over_flop_floor']}x)"
        extra = " | ".join(f"{x[k]:.2f}x" if k in x else "-" for k in ("builtin_skim", "stock_lstm"))
        folded = (
            f"{x['op_folded']:.2f}x | {r['folded_strict_gain']:.2f}x | {r['folded_strict_gain_over_flop_r']:.2f} | "
            + ({True: "yes", False: "NO"}[r["met_folded"]] if "met_folded" in r else "-")
        )
        lines.append(
            f"| {r['d']} | {r['embedding']} | {r['dtype']} | {r['skim_rate']:.1%} | {r['flop_r']:.2f} | "
            f"{us['lstm']:.2f} | {us['op_all']:.2f} | {us['op_in_pair']:.2f} | {us['op']:.2f} | {x['op']:.2f}x | "
            f"{r['op_speedup_over_flop_r']:.2f} | {r['strict_gain']:.2f}x | {r['strict_gain_over_flop_r']:.2f} | "
            f"{target} | {'yes' if r['met'] else 'NO'} | {folded} | {extra} |"
        )
    lines += [
        "",
        'Flop-R: `keras_skim.analysis.flops.flop_report("lstm", d, 10, e, skim_rate)` at the measured rate. '
        "Two baselines, each over Flop-R: the LSTM export (vs LSTM export), and the same op export reading every "
        "token, threshold 0, in the same interpreter (strict gain: skimming's own). Each speed-up is the median "
        "over rounds of the ratio within a round; the strict pair (op reading all, op at the threshold: `op us/tok "
        "(pair)`) is timed in rounds of its own, after the rounds of the LSTM export, the op and the others, each "
        "timed call after an untimed call of the same model and threshold (steady state: an app calls its model "
        "again and again). "
        "The FLOP floor at 100% skim is the skim step's FLOPs (gate, "
        "small cell) at the FLOP rate of the op's own all-read row. `stock LSTM`: `TFLiteConverter."
        "from_keras_model` (a WHILE loop of unfused ops). Every row's read decisions (op, and for float32 e=50 "
        "the builtin skim graph; the folded op against its own) match a NumPy reference: mismatches in the JSON.",
        "",
        file_sizes(report),
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
