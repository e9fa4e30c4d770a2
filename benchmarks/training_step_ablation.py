"""Where the skim layer's training step spends its extra time over
keras.layers.LSTM's (issue 36, item 5): one train step's forward and
backward pass timed with pieces of the fused loop
(keras_skim/models/skim_rnn/skim_training_loop.py) removed.

The models are benchmarks/training_speed.py's text classifier (masked
Embedding(5000, 50) -> layer -> Dense(1)) on 64-text batches of 100 tokens,
d=100. A step is the loss's gradient with respect to every weight, in one
tf.function (no optimizer: the same for every model); each timing runs
`--batches` steps, the variants take turns `--repeats` times in this one
process, and a variant's ratio is its median over the LSTM's median (process
CPU seconds, all TensorFlow threads, and wall seconds). An ablated variant
is traced with one piece of the loop replaced, for timing only (its numbers
are not the layer's):

- no mix: the new state is the read candidate (no Gumbel-softmax mix of
  the two candidates, and no select of padded steps);
- no padded-step select: the mix runs at padded steps too;
- no Gumbel noise: zeros instead of the noise drawn before the loop;
- no skim statistics: the bookkeeping after the loop (skim loss, counts)
  left out.

It also counts the ops of each loop's `tf.while_loop` body, forward (with
the pushes that keep tensors for the gradient) and backward.

Run:  PYTHONPATH=$PWD python benchmarks/training_step_ablation.py [--repeats 7]
Writes benchmarks/results/training_step_ablation[_LABEL].json and .md.
"""

import argparse
import contextlib
import json
import os
import pathlib
import platform
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
LENGTH, BATCH, UNITS = 100, 64, 100


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7, help="timings per variant (default 7)")
    parser.add_argument("--batches", type=int, default=8, help="train steps per timing (default 8)")
    parser.add_argument("--label", default="", help="suffix of the results files")
    parser.add_argument("--note", default="", help="a line for the results file")
    args = parser.parse_args(argv)
    if min(args.repeats, args.batches) < 1:
        parser.error("--repeats and --batches must be >= 1")
    return args


def variants():
    """{name: (layer builder, context manager active while it is traced)}."""
    import keras

    import keras_skim
    from benchmarks.training_speed import SMALL_UNITS
    from keras_skim.models.skim_rnn import skim_training_loop as loop

    def cell(small=SMALL_UNITS):
        return lambda: keras.layers.RNN(keras_skim.SkimLSTMCell(UNITS, small))

    def no_mix(read, skim, read_weight, previous, real):
        return loop._joined(loop._pieces(read))

    mix = loop._mix
    return {
        "LSTM": (lambda: keras.layers.LSTM(UNITS), contextlib.nullcontext),
        f"RNN(SkimLSTMCell), d'={SMALL_UNITS}": (cell(), contextlib.nullcontext),
        "RNN(SkimLSTMCell), d'=0": (cell(0), contextlib.nullcontext),
        "no mix": (cell(), lambda: _patched(loop, "_mix", no_mix)),
        "no mix, d'=0": (cell(0), lambda: _patched(loop, "_mix", no_mix)),
        "no padded-step select": (cell(), lambda: _patched(loop, "_mix", lambda *a: mix(*a[:4], None))),
        "no Gumbel noise": (cell(), lambda: _patched(keras_skim.SkimLSTMCell, "_gumbel_noise", _zero_noise)),
        "no skim statistics": (cell(), lambda: _patched(loop, "_final_stats", lambda c, stats, *a: stats)),
    }


def _zero_noise(cell, shape, seed=None):
    import tensorflow as tf

    return tf.zeros(shape)


@contextlib.contextmanager
def _patched(owner, name, value):
    """`owner.name` is `value` inside the block (then as it was: an inherited
    attribute is inherited again)."""
    own = name in vars(owner)
    saved = vars(owner).get(name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        if own:
            setattr(owner, name, saved)
        else:
            delattr(owner, name)


def gradient_step(model):
    """A tf.function: the loss's gradients with respect to the model's weights."""
    import keras
    import tensorflow as tf

    loss = keras.losses.BinaryCrossentropy(from_logits=True)

    @tf.function
    def step(ids, labels):
        with tf.GradientTape() as tape:
            value = loss(labels, model(ids, training=True))
        return [tf.convert_to_tensor(g) for g in tape.gradient(value, model.trainable_variables)]

    return step


def while_ops(step, ids, labels):
    """{"forward": n, "backward": n}: ops of the step's while-loop bodies
    (the forward body as rewritten to keep tensors for the gradient)."""
    library = step.get_concrete_function(ids, labels).graph.as_graph_def().library.function
    counts = {}
    for function in library:
        name = function.signature.name
        if "while_body" in name and (name.endswith("_rewritten") or "_grad_" in name):
            counts["backward" if "_grad_" in name else "forward"] = len(function.node_def)
    return counts


def measure(args):
    """{variant: {"cpu": [...], "wall": [...], "ops": {...}}}."""
    import keras
    import tensorflow as tf

    from benchmarks.training_speed import _classifier, make_data

    keras.utils.set_random_seed(0)
    ids, labels = make_data(args.batches * BATCH, LENGTH)
    batches = [
        (tf.constant(ids[k * BATCH : (k + 1) * BATCH]), tf.constant(labels[k * BATCH : (k + 1) * BATCH, None]))
        for k in range(args.batches)
    ]
    steps, rows = {}, {}
    for name, (layer, traced_with) in variants().items():
        steps[name] = gradient_step(_classifier(LENGTH, layer()))
        with traced_with():
            rows[name] = {"cpu": [], "wall": [], "ops": while_ops(steps[name], *batches[0])}
            steps[name](*batches[0])
    for _ in range(args.repeats):
        for name, step in steps.items():
            cpu, wall = time.process_time(), time.perf_counter()
            for batch in batches:
                out = step(*batch)
            [g.numpy() for g in out]
            rows[name]["cpu"].append(time.process_time() - cpu)
            rows[name]["wall"].append(time.perf_counter() - wall)
    return rows


def markdown(report):
    rows, base = report["rows"], report["rows"]["LSTM"]
    lines = [
        "# The skim layer's training step, piece by piece (benchmarks/training_step_ablation.py, issue 36 item 5)",
        "",
        f"{report['setup']}. Ratio: the variant's median over the LSTM's, in the same process (variants take",
        "turns). The ablated rows are the skim cell with one piece of the fused loop replaced, for timing only.",
        "",
        "| variant | CPU s | CPU ratio | wall s | wall ratio | while-body ops forward / backward |",
        "|---|---|---|---|---|---|",
    ]
    for name, row in rows.items():
        cpu, wall = statistics.median(row["cpu"]), statistics.median(row["wall"])
        ops = row["ops"]
        lines.append(
            f"| {name} | {cpu:.3f} | {cpu / statistics.median(base['cpu']):.2f} | {wall:.3f} | "
            f"{wall / statistics.median(base['wall']):.2f} | {ops.get('forward', '?')} / {ops.get('backward', '?')} |"
        )
    lines += [
        "",
        f"Load (1-minute average) before / after: {report['load'][0]:.1f} / {report['load'][1]:.1f}.",
        f"Machine: {report['machine']}. Versions: {report['versions']}.",
        f"Command: `{report['command']}`",
    ]
    if report["note"]:
        lines.append(report["note"])
    return "\n".join(lines) + "\n"


def main(argv=None):
    args = parse_args(argv)
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import keras
    import numpy
    import tensorflow as tf

    load = [os.getloadavg()[0]]
    rows = measure(args)
    load.append(os.getloadavg()[0])
    report = {
        "setup": f"{args.batches} batches of {BATCH} texts x {LENGTH} tokens per timing, d={UNITS}, "
        f"median of {args.repeats} timings, gradients only (no optimizer), no jit_compile",
        "rows": rows,
        "load": load,
        "machine": f"{platform.platform()}, {os.cpu_count()} CPUs",
        "versions": f"python {platform.python_version()}, tensorflow {tf.__version__}, keras {keras.__version__}, "
        f"numpy {numpy.__version__}",
        "command": "python " + " ".join(["benchmarks/training_step_ablation.py"] + (argv or sys.argv[1:])),
        "note": args.note,
    }
    stem = "training_step_ablation" + (f"_{args.label}" if args.label else "")
    (RESULTS / f"{stem}.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / f"{stem}.md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
