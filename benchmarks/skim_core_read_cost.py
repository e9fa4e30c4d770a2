"""What a read token and a skimmed token cost inside the Skim-LSTM op's core.

Builds benchmarks/skim_core_read_cost.cc against the op's kernels
(keras_skim/litert_ops/kernels, the flags the op library uses), runs it for
each (d, e) and dtype, and writes the strict gain (the core reading every
token over the core at the skim rate) over Flop-R, and the split of a call's
time: a skimmed token's cost (from the call that skims every token) and a
read token's cost at each rate (the rest of the call over its reads),
against the per-token cost of the call that reads every token. No LiteRT:
the interpreter's per-call cost is not in these figures (custom_op_speed.py
has it). The gate reads x only (its h rows are zero), so a threshold picks
an exact skim rate.

    python benchmarks/skim_core_read_cost.py [--runs 15] [--out PATH]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import litert_report  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(os.path.dirname(HERE), "keras_skim", "litert_ops", "kernels")
SHAPES = [(256, 50), (256, 300), (512, 50)]
TOKENS, SMALL = 200, 10
TARGET = 0.85


def build(out):
    """Compiles the probe with the op library's flags (less the shared-library ones)."""
    from keras_skim.litert_ops import native_build

    cxx = native_build.compiler()  # $CXX, default g++, as the library's own build
    if cxx is None:
        sys.exit("skim_core_read_cost.py: no C++ compiler ($CXX, default g++)")
    flags = [f for f in native_build.compile_flags() if f not in ("-shared", "-fPIC", "-fvisibility=hidden")]
    sources = [os.path.join(HERE, "skim_core_read_cost.cc")] + [
        os.path.join(KERNELS, n) for n in ("skim_lstm_core.cc", "simd_isa.cc")
    ]
    subprocess.run([cxx, *flags, f"-I{KERNELS}", *sources, "-o", out], check=True)


def measure(probe, d, e, int8, runs):
    """The probe's lines for one model -> (simd, [(rate, reads, us per call)])."""
    out = subprocess.run([probe, str(d), str(e), str(int(int8)), str(runs)], check=True, capture_output=True, text=True)
    lines = [line.split() for line in out.stdout.splitlines()]
    return lines[0][1], [(float(x[1]), int(x[3]), float(x[5])) for x in lines[1:]]


def rows_of(d, e, dtype, simd, points):
    """One row per skim rate: strict gain over Flop-R and the per-token costs."""
    from keras_skim.analysis.flops import flop_report

    all_read = points[0][2] / TOKENS
    skim_cost = points[-1][2] / TOKENS
    rows = []
    for _rate, reads, us in points:
        skimmed = TOKENS - reads
        flop_r = flop_report("lstm", d, SMALL, e, skimmed / TOKENS)["flop_r"]
        gain = points[0][2] / us
        read_cost = (us - skimmed * skim_cost) / reads if reads else None
        rows.append(
            dict(
                d=d,
                embedding=e,
                dtype=dtype,
                simd=simd,
                skim_rate=skimmed / TOKENS,
                us_per_token=round(us / TOKENS, 3),
                flop_r=round(flop_r, 3),
                strict_gain=round(gain, 3),
                strict_gain_over_flop_r=round(gain / flop_r, 3),
                all_read_us_per_token=round(all_read, 3),
                skimmed_token_us=round(skim_cost, 3),
                read_token_us=None if read_cost is None else round(read_cost, 2),
                read_token_over_all_read=None if read_cost is None else round(read_cost / all_read, 2),
            )
        )
    return rows


def markdown(report):
    m = report["machine"]
    lines = [
        "# Skim-LSTM core: the cost of a read token and of a skimmed token (no LiteRT)",
        "",
        f"- command: `{report['command']}`",
        f"- machine: {m['platform']}, {m['processor']}, {m['cpu_count']} CPUs shared with other jobs; "
        f"load average {m['load_average_at_start']} at start, {m['load_average_at_end']} at end; nice {m['nice']}",
        f"- setup: {report['setup']}",
        "",
        "| d | e | dtype | simd | skim rate | us/token | Flop-R | strict gain | / Flop-R | all-read us/token "
        "| skimmed token us | read token us | read token / all-read token |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in report["rows"]:
        cells = [r[k] for k in ("d", "embedding", "dtype", "simd")] + [f"{100 * r['skim_rate']:.1f}%"]
        cells += [r[k] for k in ("us_per_token", "flop_r", "strict_gain", "strict_gain_over_flop_r")]
        cells += [r[k] for k in ("all_read_us_per_token", "skimmed_token_us")]
        cells += ["-" if r["read_token_us"] is None else r["read_token_us"]]
        cells += ["-" if r["read_token_over_all_read"] is None else r["read_token_over_all_read"]]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    lines += [
        "",
        f"Strict gain: the core reading every token (threshold 0) over the core at the rate; target {TARGET} x Flop-R "
        "at 80% and 95% skim. Read token: (call time - skimmed tokens x skimmed-token cost) / reads.",
        "",
    ]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15, help="timed calls per rate (median)")
    ap.add_argument("--out", default=os.path.join(litert_report.RESULTS, "skim_core_read_cost"), help="path stem")
    a = ap.parse_args()
    load, started = [round(x, 2) for x in os.getloadavg()], time.time()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        probe = os.path.join(tmp, "probe")
        build(probe)
        for d, e in SHAPES:
            for dtype in ("float32", "int8"):
                simd, points = measure(probe, d, e, dtype == "int8", a.runs)
                rows += rows_of(d, e, dtype, simd, points)
    report = {
        "benchmark": "skim_core_read_cost",
        "command": litert_report.command(),
        "machine": litert_report.timed_machine(load),
        "setup": f"V=1000, d'={SMALL}, T={TOKENS}, batch 1, one thread, random weights; {a.runs} timed calls "
        "per rate after 3 untimed, medians; clock: this thread's CPU time",
        "seconds": round(time.time() - started, 1),
        "rows": rows,
    }
    litert_report.write_files(a.out, report, markdown(report))


if __name__ == "__main__":
    main()
