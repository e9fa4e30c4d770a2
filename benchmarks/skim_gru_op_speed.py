"""Per-token latency of the `KerasSkimGRU` custom-op export against our own
builtin export of a Keras GRU of the same size (input projections hoisted
out of the loop, XNNPACK on): the GRU row of benchmarks/custom_op_speed.py.

Models: V=1000, e=50, d'=10, d = 100 (`--quick`) or 100, 256, 512, random
(initial) weights; one random text of T=200 tokens, batch 1,
`num_threads=1`, LiteRT (ai-edge-litert). For each target skim rate (0:
threshold 0, every token read; 80%, 95%; 100%: threshold 1.5) the runtime
threshold is found by bisection on the op itself and the measured rate is
reported. Timed in one process, interleaved: each round invokes every
model once, in an order that alternates between rounds; medians of `--runs`
rounds after warm-up (custom_op_speed.time_interleaved).

Timed models, each against the GRU export of the same d:
  * custom op: `write_custom_op_model` of the Skim-GRU (KerasSkimGRU);
  * custom op, folded rows: `fold=True` (per-word input terms);
  * builtin skim graph: `keras-skim export` of the Skim-GRU (builtin ops).

Every row's read decisions (custom op, folded op, builtin skim graph) are
checked against the op's NumPy reference (`skim_op_reference.op_reference`).

    python benchmarks/skim_gru_op_speed.py [--runs 60] [--quick | --units D ...] [--cpu 1]

Writes benchmarks/results/skim_gru_op_speed.{json,md} (or --out STEM).
"""

import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import litert_report  # noqa: E402
import numpy as np  # noqa: E402
from custom_op_speed import (  # noqa: E402
    SMALL,
    E,
    T,
    Timed,
    V,
    arguments,
    builtin_export,
    classifier,
    file_sizes,
    markdown_head,
    report_record,
    threshold_for,
    time_interleaved,
)

RATES = [0.0, 0.80, 0.95, 1.0]


def keras_models(d):
    """(Skim-GRU classifier, GRU classifier) of size d, random weights."""
    import keras

    from keras_skim import SkimGRUCell

    keras.utils.set_random_seed(d)
    skim = classifier(keras.layers.RNN(SkimGRUCell(d, SMALL)), fixed=True)
    keras.utils.set_random_seed(d + 1)
    gru = classifier(keras.layers.GRU(d), fixed=False)
    return skim, gru


def measure(d, tokens, runs):
    """The rows of one d: one per target skim rate."""
    from keras_skim.analysis.flops import flop_report
    from keras_skim.export.custom_op_backend import custom_op_flatbuffer, read_model
    from keras_skim.models.skim_rnn.skim_op_reference import op_reference
    from keras_skim.models.skim_rnn.skim_op_weights import quantized_weights

    skim, gru = keras_models(d)
    info = read_model(skim)
    ops = quantized_weights(info)
    contents = {
        "gru": builtin_export(gru),
        "op": custom_op_flatbuffer(skim, 0.5, T, fold=False),
        "op_folded": custom_op_flatbuffer(skim, 0.5, T, fold=True),
        "builtin_skim": builtin_export(skim),
    }
    base = Timed("gru", contents["gru"], tokens)
    rows = []
    for rate in RATES:
        op = Timed("op", contents["op"], tokens)
        threshold = threshold_for(op, rate)
        models = [
            base,
            op,
            Timed("op_folded", contents["op_folded"], tokens, threshold),
            Timed("builtin_skim", contents["builtin_skim"], tokens, threshold),
        ]
        op.set_threshold(threshold)
        mask = op.read_mask()
        _, want = op_reference(info, ops, tokens, threshold)
        mismatches = sum(int(np.sum(m.read_mask() != want)) for m in models[1:])
        times = time_interleaved(models, runs)
        us = {m.name: float(np.median(t)) / T * 1e6 for m, t in zip(models, times)}
        ratios = {m.name: float(np.median(times[0] / t)) for m, t in zip(models, times)}
        skim_rate = 1.0 - float(mask.mean())
        flops = flop_report("gru", d, SMALL, E, skim_rate)
        row = dict(
            d=d,
            small_units=SMALL,
            target_skim=rate,
            skim_rate=round(skim_rate, 4),
            threshold=float(threshold),
            flop_r=round(flops["flop_r"], 3),
            us_per_token={k: round(v, 3) for k, v in us.items()},
            speedup_vs_gru_export={k: round(v, 3) for k, v in ratios.items() if k != "gru"},
            op_speedup_over_flop_r=round(ratios["op"] / flops["flop_r"], 3),
            mask_mismatches_vs_reference=mismatches,
        )
        rows.append(row)
        print(json.dumps(row), flush=True)
    rows[0]["file_bytes"] = {k: len(v) for k, v in contents.items()}
    return rows


def main():
    a = arguments(__doc__.splitlines()[0], "skim_gru_op_speed")
    from keras_skim.litert_ops import library_path

    library_path()  # build once, outside the timings
    tokens = np.random.default_rng(1).integers(1, V, T).astype(np.int32)
    load_before = [round(x, 2) for x in os.getloadavg()]
    started = time.time()
    rows = [row for d in a.units for row in measure(d, tokens, a.runs)]
    baseline = "keras.layers.GRU(d) exported by keras-skim (builtin ops, hoisted input projections, XNNPACK on)"
    report = report_record("skim_gru_op_speed", a.runs, load_before, started, rows, baseline)
    litert_report.write_files(a.out, report, _markdown(report))


def _markdown(report):
    lines = markdown_head("KerasSkimGRU custom op vs the GRU export (builtin ops, XNNPACK)", report) + [
        "| d | skim rate | Flop-R | GRU export us/tok | custom op us/tok | speed-up | / Flop-R |"
        " folded op speed-up | builtin skim graph speed-up | decisions vs reference |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in report["rows"]:
        us, x = r["us_per_token"], r["speedup_vs_gru_export"]
        agree = "all agree" if r["mask_mismatches_vs_reference"] == 0 else f"{r['mask_mismatches_vs_reference']} differ"
        lines.append(
            f"| {r['d']} | {r['skim_rate']:.1%} | {r['flop_r']:.2f} | {us['gru']:.2f} | {us['op']:.2f} | "
            f"{x['op']:.2f}x | {r['op_speedup_over_flop_r']:.2f} | {x['op_folded']:.2f}x | "
            f"{x['builtin_skim']:.2f}x | {agree} |"
        )
    lines += [
        "",
        'Flop-R: `keras_skim.analysis.flops.flop_report("gru", d, 10, 50, skim_rate)` at the measured rate. '
        "Read decisions of the custom op, the folded op and the builtin skim graph are compared with the op's "
        "NumPy reference (`skim_op_reference.op_reference`).",
        "",
        file_sizes(report),
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
