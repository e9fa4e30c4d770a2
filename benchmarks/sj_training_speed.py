"""Speed-read training steps per second of Structural-Jump-LSTM at IMDB's shapes,
where the time of a step goes, and the projected time of the authors' 31,000 steps.

Shapes of the IMDB runs: batch 100, 400 raw tokens per text, about 10% of them
punctuation (about 360 words), vocabulary 20,000, GloVe 50d, LSTM 128, agents 25,
the embedding frozen (phase 2), the authors' RMSprop (`PerTensorClipRMSprop`).
Random ids: a step costs the same whatever the words are (the RNN runs over the
longest word stream of the batch and computes the LSTM at every position).

Each variant runs in its own process (thread settings are fixed when TensorFlow
starts); the variants take turns, `--repeats` times, and the medians are reported,
with every ratio against the baseline measured in the same run. In each process:
`train_on_batch` steps (the whole step), the forward pass alone, and the forward
pass with its gradient (no optimizer) in a `tf.function`, so that the share of
the recurrent loop, of its backward pass and of the rest (loss, metrics,
clipping, RMSprop) can be told apart.

Writes results/sj_training_speed.json and .md with the machine, versions and command.

    python benchmarks/sj_training_speed.py
    python benchmarks/sj_training_speed.py --steps 5 --repeats 3 --variants baseline,intra1
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
AUTHORS_STEPS = 31000
VARIANTS = {
    # name: (intra-op threads, inter-op threads, what it is)
    "baseline": (0, 0, "TensorFlow's default thread pools"),
    "intra1": (1, 0, "one intra-op thread (small ops of the loop run unsplit)"),
    "inter1": (0, 1, "one inter-op thread (the loop's independent ops in sequence)"),
}


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--tokens", type=int, default=400)
    parser.add_argument("--steps", type=int, default=5, help="timed steps per measurement")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--output", default=os.path.join(HERE, "results", "sj_training_speed"))
    return parser.parse_args(argv)


def batch(args):
    import numpy as np

    rs = np.random.RandomState(0)
    ids = rs.randint(10, 20000, (args.batch_size, args.tokens)).astype("int32")
    kind = rs.rand(args.batch_size, args.tokens)
    ids[kind < 0.05] = 2  # ","
    ids[(kind >= 0.05) & (kind < 0.10)] = 3  # "."
    return ids, rs.randint(0, 2, args.batch_size).astype("int32")


def child(args):
    """One process, one variant: prints a JSON line of seconds per step."""
    intra, inter, _ = VARIANTS[args.child]
    import tensorflow as tf

    if intra:
        tf.config.threading.set_intra_op_parallelism_threads(intra)
    if inter:
        tf.config.threading.set_inter_op_parallelism_threads(inter)
    import keras

    from keras_skim.models.structural_jump.per_tensor_clip_rmsprop import PerTensorClipRMSprop
    from keras_skim.models.structural_jump.structural_jump_lstm import StructuralJumpLSTM

    ids, labels = batch(args)
    keras.utils.set_random_seed(0)
    model = StructuralJumpLSTM(20000, [2], [3], embedding_dim=50, units=128, agent_units=25, seed=0)
    model.embedding.trainable = False
    model.compile(PerTensorClipRMSprop(5e-4))

    forward = tf.function(lambda x: model(x, training=True)["logits"])

    @tf.function
    def gradient(x, y):
        with tf.GradientTape() as tape:
            out = model(x, training=True)
            loss = model.compute_loss(x, y, out)
        return tape.gradient(loss, model.trainable_variables)

    def timed(run):
        run()  # trace / warm up
        started = time.perf_counter()
        for _ in range(args.steps):
            run()
        return (time.perf_counter() - started) / args.steps

    x, y = tf.constant(ids), tf.constant(labels)
    result = {
        "train_step": timed(lambda: model.train_on_batch(ids, labels)),
        "forward": timed(lambda: forward(x).numpy()),
        "forward_backward": timed(lambda: [g.numpy() for g in gradient(x, y) if g is not None]),
        "words_per_text": float((model.text_structure(x)[1][:, 0, 2]).numpy().mean()),
    }
    print("RESULT " + json.dumps(result), flush=True)


def run_child(args, variant):
    command = [
        sys.executable,
        os.path.abspath(__file__),
        "--child",
        variant,
        "--batch-size",
        str(args.batch_size),
        "--tokens",
        str(args.tokens),
        "--steps",
        str(args.steps),
    ]
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode or not lines:
        raise RuntimeError(f"variant {variant} failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(lines[-1][len("RESULT ") :])


def main(argv=None):
    args = parse(argv)
    if args.child:
        return child(args)
    sys.path.insert(0, HERE)
    import litert_report

    load_at_start = [round(x, 2) for x in os.getloadavg()]
    variants = [v for v in args.variants.split(",") if v]
    runs = {v: [] for v in variants}
    for repeat in range(args.repeats):
        for variant in variants:
            runs[variant].append(run_child(args, variant))
            print(f"repeat {repeat + 1}, {variant}: {runs[variant][-1]}", flush=True)
    rows = []
    base = statistics.median(r["train_step"] for r in runs[variants[0]])
    for variant in variants:
        medians = {
            k: statistics.median(r[k] for r in runs[variant]) for k in ("train_step", "forward", "forward_backward")
        }
        rows.append(
            {
                "variant": variant,
                "what": VARIANTS[variant][2],
                **{f"{k}_seconds": v for k, v in medians.items()},
                "steps_per_second": 1.0 / medians["train_step"],
                "projected_hours_31k_steps": AUTHORS_STEPS * medians["train_step"] / 3600,
                "speedup_vs_baseline": base / medians["train_step"],
                "forward_share": medians["forward"] / medians["train_step"],
                "backward_share": (medians["forward_backward"] - medians["forward"]) / medians["train_step"],
                "rest_share": 1.0 - medians["forward_backward"] / medians["train_step"],
                "runs": runs[variant],
            }
        )
    report = {
        "command": litert_report.command(),
        "machine": litert_report.timed_machine(load_at_start),
        "versions": litert_report.versions(),
        "arguments": {k: v for k, v in vars(args).items() if k != "child"},
        "words_per_text": runs[variants[0]][0]["words_per_text"],
        "rows": rows,
    }
    litert_report.write_files(args.output, report, markdown(report))
    print(markdown(report))
    return 0


def markdown(report):
    a = report["arguments"]
    m = report["machine"]
    lines = [
        "# Structural-Jump-LSTM speed-read training step (IMDB shapes)",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Machine: {m['platform']}, {m['cpu_count']} CPUs, load average {m['load_average_at_start']} at the "
        f"start and {m['load_average_at_end']} at the end (a shared machine: compare the rows of this run only); "
        f"versions: " + ", ".join(f"{k} {v}" for k, v in report["versions"].items()),
        "",
        f"Batch {a['batch_size']} x {a['tokens']} tokens ({report['words_per_text']:.0f} words per text), "
        f"LSTM 128, agents 25, GloVe-sized embedding (50) frozen, PerTensorClipRMSprop; medians of "
        f"{a['repeats']} processes per variant, {a['steps']} steps each, the variants taking turns.",
        "",
        "| variant | s/step | steps/s | 31k steps | vs baseline | forward | backward | loss+optimizer+rest |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in report["rows"]:
        lines.append(
            f"| {r['variant']}: {r['what']} | {r['train_step_seconds']:.3f} | {r['steps_per_second']:.2f} | "
            f"{r['projected_hours_31k_steps']:.1f} h | {r['speedup_vs_baseline']:.2f}x | "
            f"{r['forward_share']:.0%} | {r['backward_share']:.0%} | {r['rest_share']:.0%} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
