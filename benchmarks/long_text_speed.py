"""Cost per token of an exported Skim-LSTM against the text length.

Issue 8, item 4: the builtin graph used to rewrite its whole read mask at
every token (quadratic in T: 7.6 us/token at T=2,500, 21 us at T=40,000,
T=1,000,000 not done in 300 s). This script exports one random-weight
Skim-LSTM (d=100, d'=10, e=100, V=2000) with both backends and times one
text of each length (random ids, threshold 0.5, about half the tokens
read), batch 1, one thread, with the TensorFlow-free runtime. The
lengths alternate within each repeat so that machine drift hits all alike;
the per-token time is the median over repeats. Target: per-token time at
T=50,000 within 1.3x of T=500.

    python benchmarks/long_text_speed.py [--repeats 7] [--lengths 500,5000,50000]

Writes benchmarks/results/long_text_speed.json and .md.
"""

import argparse
import os
import tempfile
import time

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import litert_report  # noqa: E402
import numpy as np  # noqa: E402

V, E, D, DS = 2000, 100, 100, 10


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--lengths", default="500,5000,50000")
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument("--output", default="long_text_speed")
    args = parser.parse_args()
    lengths = [int(v) for v in args.lengths.split(",")]

    import keras

    from keras_skim import SkimLSTMCell
    from keras_skim.export.exporter import export_model
    from keras_skim.runtime import SkimRunner

    keras.utils.set_random_seed(0)
    inp = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(V, E, mask_zero=True)(inp)
    model = keras.Model(inp, keras.layers.Dense(2)(keras.layers.RNN(SkimLSTMCell(D, DS))(x)))
    rng = np.random.default_rng(0)
    texts = {n: rng.integers(1, V, size=n).astype(np.int32) for n in lengths}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "skim.keras")
        model.save(path)
        runners = {}
        for backend in ("builtin", "custom"):
            out = os.path.join(tmp, backend)
            export_model(path, out, backend=backend, parity_samples=2)
            runners[backend] = SkimRunner(out)
        for backend, runner in runners.items():
            prepared = {n: runner.prepare(ids, args.threshold) for n, ids in texts.items()}
            runner.invoke(*prepared[lengths[0]])  # warm-up
            times = {n: [] for n in lengths}
            reads = {n: int(runner.invoke(*prepared[n])["read_count"][0]) for n in lengths}
            for r in range(args.repeats):
                order = lengths if r % 2 == 0 else lengths[::-1]
                for n in order:
                    start = time.perf_counter()
                    runner.invoke(*prepared[n])
                    times[n].append((time.perf_counter() - start) / n * 1e6)
            base = float(np.median(times[lengths[0]]))
            for n in lengths:
                median = float(np.median(times[n]))
                rows.append(
                    {
                        "backend": backend,
                        "tokens": n,
                        "read_fraction": reads[n] / n,
                        "us_per_token_median": median,
                        "us_per_token_min": float(np.min(times[n])),
                        "ratio_to_shortest": median / base,
                        "runs": len(times[n]),
                    }
                )
    report = {
        "what": "per-token latency of one exported Skim-LSTM text against its length",
        "model": {"units": D, "small_units": DS, "embedding_dim": E, "vocabulary_size": V, "threshold": args.threshold},
        "threads": 1,
        "repeats": args.repeats,
        "target": "ratio_to_shortest <= 1.3 at 50,000 tokens",
        "results": rows,
        "machine": litert_report.machine(load_average=True),
        "versions": litert_report.versions(),
        "command": litert_report.command(),
    }
    lines = [
        "# Cost per token against the text length (exported Skim-LSTM, d=100, d'=10)",
        "",
        f"Batch 1, one thread, threshold {args.threshold}, median of {args.repeats} runs per length "
        "(lengths interleaved). Target: at 50,000 tokens within 1.3x of the per-token time at 500.",
        "",
        "| backend | tokens | read | us/token (median) | min | x the shortest |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['backend']} | {row['tokens']:,} | {row['read_fraction']:.0%} | "
            f"{row['us_per_token_median']:.2f} | {row['us_per_token_min']:.2f} | {row['ratio_to_shortest']:.2f}x |"
        )
    machine = report["machine"]
    lines += [
        "",
        f"Machine: {machine['platform']}, {machine['cpu_count']} CPUs, load average at the end "
        f"{machine['load_average_at_end']}. Versions: "
        + ", ".join(f"{k} {v}" for k, v in report["versions"].items())
        + f". Command: `{report['command']}`.",
        "",
    ]
    litert_report.write(args.output, report, "\n".join(lines))


if __name__ == "__main__":
    main()
