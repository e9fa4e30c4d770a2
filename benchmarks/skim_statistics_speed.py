"""Speed of `skim_statistics`: the compiled probe against the eager one it replaced.

Issue 15: `skim_statistics` ran its per-batch probe eagerly (a Keras model
call and a `return_state` RNN twin per batch, step by step in Python), more
than an hour for the IMDB validation threshold sweep. It now builds one
Keras model per trained model (the twins' final bookkeeping states as
outputs) and runs it with `predict_on_batch`, which Keras compiles once
(the threshold is a variable: a sweep reuses it).

This script times both on a sweep-sized input: 2,500 texts of 400 random
token ids (1..V-1) through a randomly initialised Skim-LSTM text classifier
(embedding 50, d=100, d'=10, V=20,000; threshold 0.5, batch 64), after one
warm-up call each (the compiled probe's first call, its trace included, is
timed as `first_call_seconds`). The eager probe is so slow (about 0.1 s per
step and batch) that it is timed on the first `--eager-texts` texts only
(two batches by default), with the compiled one on the same texts, the two
alternating, `--repeats` times: the speed-up is the ratio of those medians,
both measured. The compiled probe is also timed on all 2,500 texts, and the
eager time for them is projected linearly from the subset (its cost is the
same for every full batch), labelled as projected. Both probes must count
the same tokens and skims on the subset.

    python benchmarks/skim_statistics_speed.py [--repeats 3] [--texts 2500] [--length 400] [--eager-texts 128]

Writes benchmarks/results/skim_statistics_speed.json and .md.
"""

import argparse
import os
import time

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import litert_report  # noqa: E402
import numpy as np  # noqa: E402

V, E, D, DS, BATCH = 20000, 50, 100, 10, 64


def eager_skim_counts(model, token_ids, batch_size=BATCH):
    """The probe as it was before the change (keras_skim 05db1a2): per batch,
    an eager call of a feature model and of a `return_state` twin of the
    skim RNN layer; returns (skimmed, tokens)."""
    import keras

    from keras_skim.models.skim_rnn.skim_cell_base import STAT_SKIMS, STAT_TOKENS
    from keras_skim.models.skim_rnn.skim_controls import skim_cells

    cell = skim_cells(model)[0]
    layer = next(layer for layer in model.layers if getattr(layer, "cell", None) is cell)
    inputs = layer.input[0] if isinstance(layer.input, (list, tuple)) else layer.input
    feature_model = keras.Model(model.inputs, inputs)
    twin = keras.layers.RNN(cell, return_state=True, go_backwards=layer.go_backwards)
    skimmed = tokens = 0.0
    for start in range(0, len(token_ids), batch_size):
        batch = token_ids[start : start + batch_size]
        features = feature_model([batch], training=False)
        stats = np.asarray(twin(features, mask=batch != 0, training=False)[-1])
        skimmed += float(stats[:, STAT_SKIMS].sum())
        tokens += float(stats[:, STAT_TOKENS].sum())
    return skimmed, tokens


def compiled_skim_counts(model, token_ids):
    from keras_skim.models.skim_rnn.skim_statistics import skim_statistics

    stats = skim_statistics(model, token_ids, batch_size=BATCH, progress=False)
    return stats["skimmed"], stats["tokens"]


def _median_time(run, repeats):
    times, result = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - started)
    return times, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--texts", type=int, default=2500)
    parser.add_argument("--length", type=int, default=400)
    parser.add_argument("--eager-texts", type=int, default=2 * BATCH)
    parser.add_argument("--output", default="skim_statistics_speed")
    args = parser.parse_args()
    load_at_start = [round(x, 2) for x in os.getloadavg()]

    import keras

    from keras_skim.models.text_classifier.text_classifier import build_text_classifier

    keras.utils.set_random_seed(0)
    model = build_text_classifier("skim-lstm", V, args.length, embedding_dim=E, units=D, small_units=DS, seed=0)
    ids = np.random.default_rng(0).integers(1, V, size=(args.texts, args.length)).astype(np.int32)
    subset = ids[: args.eager_texts]

    started = time.perf_counter()
    compiled_skim_counts(model, ids)  # traces and compiles the probe once
    first_call = time.perf_counter() - started
    eager_skim_counts(model, ids[:BATCH])  # warm-up of the eager path
    times = {"eager_subset": [], "compiled_subset": []}
    for _ in range(args.repeats):
        for name, run in (("eager_subset", eager_skim_counts), ("compiled_subset", compiled_skim_counts)):
            started = time.perf_counter()
            counts = run(model, subset)
            times[name].append(time.perf_counter() - started)
            if name == "eager_subset":
                eager = counts
            else:
                compiled = counts
    if eager != compiled:
        raise SystemExit(f"the two probes disagree: eager {eager}, compiled {compiled}")
    times["compiled_all"], counts_all = _median_time(lambda: compiled_skim_counts(model, ids), args.repeats)
    medians = {name: float(np.median(values)) for name, values in times.items()}
    speedup = medians["eager_subset"] / medians["compiled_subset"]
    projected = medians["eager_subset"] * args.texts / args.eager_texts
    report = {
        "what": "skim_statistics on random ids through a random-weight Skim-LSTM text classifier",
        "input": {"texts": args.texts, "eager_texts": args.eager_texts, "length": args.length, "vocabulary": V},
        "model": {"embedding_dim": E, "units": D, "small_units": DS, "threshold": 0.5, "batch_size": BATCH},
        "repeats": args.repeats,
        "seconds": times,
        "median_seconds": medians,
        "first_call_seconds": first_call,
        "speedup_measured": speedup,
        "eager_all_projected_seconds": projected,
        "speedup_all_projected": projected / medians["compiled_all"],
        "subset_counts": {"skimmed": compiled[0], "tokens": compiled[1]},
        "all_counts": {"skimmed": counts_all[0], "tokens": counts_all[1]},
        "machine": litert_report.timed_machine(load_at_start),
        "versions": litert_report.versions(),
        "command": litert_report.command(),
    }
    machine = report["machine"]
    markdown = (
        "# skim_statistics: compiled probe vs the eager one it replaced\n\n"
        f"Random ids, length {args.length}, through a random-weight Skim-LSTM (d={D}, d'={DS}, V={V}), "
        f"batch {BATCH}, threshold 0.5; medians of {args.repeats} runs.\n\n"
        "| probe | texts | median s | speed-up |\n|---|---:|---:|---:|\n"
        f"| eager (before) | {args.eager_texts} | {medians['eager_subset']:.2f} | 1.00x |\n"
        f"| compiled (now) | {args.eager_texts} | {medians['compiled_subset']:.3f} | {speedup:.1f}x |\n"
        f"| eager (before), projected | {args.texts} | {projected:.0f} | 1.00x |\n"
        f"| compiled (now) | {args.texts} | {medians['compiled_all']:.2f} | "
        f"{report['speedup_all_projected']:.1f}x (vs projected) |\n\n"
        f"First compiled call (trace + run, {args.texts} texts): {first_call:.2f} s. On the {args.eager_texts} "
        f"texts both counted {compiled[1]:.0f} tokens, {compiled[0]:.0f} skimmed.\n\n"
        f"Machine: {machine['processor']}, {machine['cpu_count']} CPUs, load {load_at_start} at start, "
        f"{machine['load_average_at_end']} at end. Command: `{report['command']}`\n"
    )
    litert_report.write(args.output, report, markdown)


if __name__ == "__main__":
    main()
