"""Training speed of the speed-reading layers against keras.layers.LSTM / GRU
of the same size, measured in one process (issue 20).

The model is the CLI's text classifier: a masked Embedding(5000, 50) -> the
recurrent layer -> Dense(1) logit, trained with Adam on binary
cross-entropy; 2,048 random texts of 100 token ids (each text 20 to 100
real tokens, padded with 0 on the right as `Tokenizer.encode` does),
batch 64. Structural-Jump-LSTM is its own `keras.Model`
(`keras_skim.StructuralJumpLSTM`, the paper's head) on the same ids, with
ids 2, 3 and 4 as its punctuation.

Every model is built and trained for one warm-up epoch (the tracing), then
the models take turns for `--repeats` rounds of one epoch each, so that a
change in the machine's load hits every model alike; a row's time is the
median of its rounds, and its ratio is against the LSTM (or GRU) of the same
size and `jit_compile` setting in the same run.

Run:  PYTHONPATH=$PWD python benchmarks/training_speed.py [--quick] [--label NAME]
Writes benchmarks/results/training_speed[_NAME].json and .md.
"""

import argparse
import os
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

VOCABULARY = 5000
EMBEDDING_DIM = 50
SMALL_UNITS = 10
BEFORE = "fused 7a35a01 (before)"
JIT_ROWS = (
    "LSTM",
    "SkimLSTM",
    f"SkimLSTM {BEFORE}",
    "SkimLSTM per-step (before)",
    "GRU",
    "SkimGRU",
    f"SkimGRU {BEFORE}",
    "SkimGRU per-step (before)",
)
PUNCTUATION = dict(separator_ids=[2], sentence_end_ids=[3], other_punctuation_ids=[4])


def make_data(texts, length, seed=0):
    import numpy as np

    rng = np.random.default_rng(seed)
    ids = rng.integers(5, VOCABULARY, size=(texts, length), dtype=np.int32)
    # punctuation now and then, for the jump model's structure
    ids = np.where(rng.random((texts, length)) < 0.08, rng.integers(2, 5, size=(texts, length)), ids)
    lengths = rng.integers(min(20, length), length + 1, size=texts)
    ids[np.arange(length)[None, :] >= lengths[:, None]] = 0
    labels = rng.integers(0, 2, size=texts).astype(np.float32)
    return ids.astype(np.int32), labels


def _classifier(length, rnn):
    import keras

    inputs = keras.Input((length,), dtype="int32")
    x = keras.layers.Embedding(VOCABULARY, EMBEDDING_DIM, mask_zero=True)(inputs)
    return keras.Model(inputs, keras.layers.Dense(1)(rnn(x)))


def model_builders():
    """{row name: (baseline row name, builder(units, length) -> compiled model)}."""
    import keras

    import keras_skim

    def compiled(model, jit):
        model.compile(
            optimizer=keras.optimizers.Adam(1e-3),
            loss=keras.losses.BinaryCrossentropy(from_logits=True),
            jit_compile=jit,
        )
        return model

    def text(make_rnn):
        return lambda units, length, jit: compiled(_classifier(length, make_rnn(units)), jit)

    def jump(units, length, jit):
        model = keras_skim.StructuralJumpLSTM(VOCABULARY, **PUNCTUATION, units=units, embedding_dim=EMBEDDING_DIM)
        model.compile(optimizer=keras.optimizers.Adam(1e-3), jit_compile=jit)
        return model

    def per_step(layer_class):
        # The loop before the fused one (main before issue 20's fused loop):
        # keras.layers.RNN's loop runs the cell's `call` at every step.
        def make(d):
            layer = layer_class(d, SMALL_UNITS)
            layer.cell.fused_loop = False
            return layer

        return make

    def fused_before(layer_class):
        # The fused loop as it was at commit 7a35a01 (benchmarks/fused_loop_before.py):
        # the model is marked, and `_fit` swaps that loop in while it traces and trains.
        def build(units, length, jit):
            model = text(lambda d: layer_class(d, SMALL_UNITS))(units, length, jit)
            model._fused_loop_before = True
            return model

        return build

    rows = {
        "LSTM": (None, text(lambda d: keras.layers.LSTM(d))),
        "SkimLSTM": ("LSTM", text(lambda d: keras_skim.SkimLSTM(d, SMALL_UNITS))),
        f"SkimLSTM {BEFORE}": ("LSTM", fused_before(keras_skim.SkimLSTM)),
        "RNN(SkimLSTMCell)": ("LSTM", text(lambda d: keras.layers.RNN(keras_skim.SkimLSTMCell(d, SMALL_UNITS)))),
        "SkimLSTM per-step (before)": ("LSTM", text(per_step(keras_skim.SkimLSTM))),
        "GRU": (None, text(lambda d: keras.layers.GRU(d))),
        "SkimGRU": ("GRU", text(lambda d: keras_skim.SkimGRU(d, SMALL_UNITS))),
        f"SkimGRU {BEFORE}": ("GRU", fused_before(keras_skim.SkimGRU)),
        "RNN(SkimGRUCell)": ("GRU", text(lambda d: keras.layers.RNN(keras_skim.SkimGRUCell(d, SMALL_UNITS)))),
        "SkimGRU per-step (before)": ("GRU", text(per_step(keras_skim.SkimGRU))),
        "StructuralJumpLSTM": ("LSTM", jump),
    }
    return rows


def _fit(model, ids, target, batch_size):
    """One epoch; a model marked `_fused_loop_before` runs the loop of
    benchmarks/fused_loop_before.py (patched in only while it fits, so that
    a retrace of it keeps that loop and the other models keep today's)."""
    if not getattr(model, "_fused_loop_before", False):
        return model.fit(ids, target, batch_size=batch_size, epochs=1, verbose=0)
    from benchmarks import fused_loop_before
    from keras_skim.models.skim_rnn import skim_training_loop

    today = skim_training_loop.fused_training_loop
    skim_training_loop.fused_training_loop = fused_loop_before.fused_training_loop
    try:
        return model.fit(ids, target, batch_size=batch_size, epochs=1, verbose=0)
    finally:
        skim_training_loop.fused_training_loop = today


def time_epochs(models, ids, labels, batch_size, repeats):
    """{key: [seconds of each timed epoch]}; one warm-up epoch each first."""
    import keras

    target = labels.reshape(-1, 1)
    for model in models.values():
        _fit(model, ids, target, batch_size)
    times = {key: [] for key in models}
    cpu = {key: [] for key in models}
    for _ in range(repeats):
        for key, model in models.items():
            started, cpu_started = time.perf_counter(), time.process_time()
            _fit(model, ids, target, batch_size)
            times[key].append(time.perf_counter() - started)
            cpu[key].append(time.process_time() - cpu_started)
    keras.backend.clear_session()
    return times, cpu


def run(args, written=None):
    """The rows of every config; `written(rows)` after each config (the
    result files then hold every finished config)."""
    import keras

    keras.utils.set_random_seed(0)
    builders = model_builders()
    names = [n for n in builders if not args.rows or n in args.rows]
    ids, labels = make_data(args.texts, args.length)
    rows = []
    for units, jit in args.configs:
        # With jit_compile only the layers and their baselines (XLA does
        # not compile the Structural-Jump-LSTM model, see README).
        config_names = [n for n in names if not jit or n in JIT_ROWS]
        models = {name: builders[name][1](units, args.length, jit) for name in config_names}
        times, cpu = time_epochs(models, ids, labels, args.batch_size, args.repeats)
        medians = {name: statistics.median(t) for name, t in times.items()}
        cpu_medians = {name: statistics.median(t) for name, t in cpu.items()}
        for name in config_names:
            baseline = builders[name][0]
            known = baseline in medians
            rows.append(
                dict(
                    layer=name,
                    units=units,
                    jit_compile=jit,
                    seconds_per_epoch=round(medians[name], 3),
                    epochs_timed=[round(t, 3) for t in times[name]],
                    cpu_seconds_per_epoch=round(cpu_medians[name], 3),
                    baseline=baseline,
                    ratio_to_baseline=round(medians[name] / medians[baseline], 3) if known else None,
                    cpu_ratio_to_baseline=round(cpu_medians[name] / cpu_medians[baseline], 3) if known else None,
                )
            )
            print(rows[-1], flush=True)
        if written is not None:
            written(rows)
    return rows


def markdown(report):
    s = report["settings"]
    lines = [
        "# Training speed: an epoch of the speed-reading layers against keras.layers.LSTM / GRU",
        "",
        f"Masked Embedding({VOCABULARY}, {EMBEDDING_DIM}) -> layer -> Dense(1), Adam, {s['texts']} texts x "
        f"{s['length']} tokens (20-{s['length']} real), batch {s['batch_size']}, d' = {SMALL_UNITS}. Median of "
        f"{s['repeats']} epochs after a warm-up epoch, the models taking turns; ratio = seconds / seconds of the "
        "baseline of the same size and jit_compile in the same run.",
        "",
        "CPU seconds (all threads of the process) are less sensitive than wall seconds to other processes",
        "on a shared machine; both are medians of the same epochs.",
        "",
        "After and before in the same run: `SkimLSTM`, `SkimGRU` and `RNN(Skim...Cell)` train with the fused loop",
        "(`keras_skim/models/skim_rnn/skim_training_loop.py`, the default); the `fused 7a35a01 (before)` rows are the "
        "same",
        "layers with the fused loop as it was at commit 7a35a01 (`benchmarks/fused_loop_before.py`); the",
        "`per-step (before)` rows, where present, have `cell.fused_loop = False`, Keras' loop calling the cell at",
        "every step (main before the fused loop).",
        "",
        "| layer | d | jit_compile | s / epoch | ratio | CPU s / epoch | CPU ratio | baseline |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in report["rows"]:
        ratio = "" if r["ratio_to_baseline"] is None else f"{r['ratio_to_baseline']:.2f}x"
        cpu_ratio = "" if r["cpu_ratio_to_baseline"] is None else f"{r['cpu_ratio_to_baseline']:.2f}x"
        lines.append(
            f"| {r['layer']} | {r['units']} | {r['jit_compile']} | {r['seconds_per_epoch']:.2f} | {ratio} | "
            f"{r['cpu_seconds_per_epoch']:.2f} | {cpu_ratio} | {r['baseline'] or ''} |"
        )
    m = report["machine"]
    lines += [
        "",
        f"Machine: {m['platform']}, {m['cpu_count']} CPUs (load average {m['load_average_at_start']} at the start, "
        f"{m['load_average_at_end']} at the end). GPU: {report['gpu']}.",
        f"Versions: {', '.join(f'{k} {v}' for k, v in report['versions'].items())}.",
        f"Command: `{report['command']}`",
        "",
    ]
    if report.get("note"):
        lines[-1:-1] = [report["note"], ""]
    return "\n".join(lines)


def gpu_note():
    import tensorflow as tf

    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        return ", ".join(tf.config.experimental.get_device_details(g).get("device_name", g.name) for g in gpus)
    return "none (CPU only; no GPU was lent to this run)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="512 texts, d=100, 2 repeats, no jit_compile")
    parser.add_argument(
        "--configs",
        nargs="*",
        default=["100", "100:jit", "256", "256:jit"],
        help="d[:jit] settings to run (default: d=100 and d=256, each without and with jit_compile)",
    )
    parser.add_argument("--label", default="", help="suffix of the result files")
    parser.add_argument("--rows", nargs="*", help="only these layers (names as in the table)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--texts", type=int, default=2048, help="texts per epoch (batch 64 and 100 tokens stay)")
    parser.add_argument("--note", default="", help="a sentence for the result file (e.g. the machine's load)")
    args = parser.parse_args()
    args.length, args.batch_size = 100, 64
    args.configs = [(int(c.split(":")[0]), c.endswith(":jit")) for c in args.configs]
    if args.quick:
        args.texts, args.configs, args.repeats = 512, [(100, False)], 2

    from benchmarks import litert_report

    load = [round(x, 2) for x in os.getloadavg()]
    stem = "training_speed" + (f"_{args.label}" if args.label else "")

    def write(rows):
        report = dict(
            settings=dict(texts=args.texts, length=args.length, batch_size=args.batch_size, repeats=args.repeats),
            rows=rows,
            machine=litert_report.timed_machine(load),
            gpu=gpu_note(),
            versions=_versions(),
            command=litert_report.command(),
            note=args.note,
        )
        litert_report.write(stem, report, markdown(report))

    run(args, written=write)


def _versions():
    import platform

    import keras
    import numpy as np
    import tensorflow as tf

    return {
        "python": platform.python_version(),
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "numpy": np.__version__,
    }


if __name__ == "__main__":
    main()
