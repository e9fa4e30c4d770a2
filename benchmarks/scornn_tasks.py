"""scoRNN benchmarks: the tasks of Helfrich, Willmott, Ye (ICML 2018).

Subcommands (all take scale-down arguments; defaults follow the paper):

  copying  Copy 10 symbols (8 letters) after T blanks; input/output length
           T + 20, 10 classes. Baseline (guess blanks, then a uniform
           letter): cross-entropy 10 log(8) / (T + 20).
  adding   Sum the two marked numbers of a length-T sequence of (U[0, 1],
           marker) pairs. Baseline (always predict 1): MSE 1/6 ~ 0.167.
  mnist    Pixel-by-pixel MNIST (784 steps, 1 input), `--permuted` applies
           a fixed random pixel permutation. Data from
           `keras_skim.datasets.load_mnist_digits`.
  mnist-model  The same with the paper's protocol, into a model folder
           (`-o`) that presets, `keras-skim evaluate` and `keras-skim export`
           read: the epoch of best validation accuracy kept (a 1/12 hold-out
           of the train split), the test split evaluated once at the end;
           checkpointed at each epoch's end, `--resume` continues the run
           (`keras_skim.models.scornn.pixel_mnist_training`).
  speed    Median training time per batch of ScoRNN vs keras SimpleRNN and
           LSTM with matched recurrent-layer parameter counts (and ScoRNN
           with W re-formed at every step, to show what forming W once per
           batch saves), all measured in the same run.

Every run writes `<task>-<tag>.json` and `<task>-<tag>.md` (machine,
versions, command, results) under `benchmarks/results/` (`--out-dir`).
Training uses `keras_skim.models.scornn.scornn_optimizer.scornn_optimizer`:
RMSprop `--lr` (1e-3) for all weights but A, RMSprop `--skew-lr` (1e-4)
for A, as in the paper.

Examples:
  python benchmarks/scornn_tasks.py speed --repeats 10
  python benchmarks/scornn_tasks.py adding --T 200 --steps 300
  python benchmarks/scornn_tasks.py copying --T 1000 --steps 4000
  python benchmarks/scornn_tasks.py mnist --permuted --epochs 70
  python benchmarks/scornn_tasks.py mnist-model --resume --run-name NAME -o runs/NAME
"""

import argparse
import datetime
import json
import math
import os
import pathlib
import platform
import shlex
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402

from keras_skim.models.scornn.scornn_cell import ScoRNNCell  # noqa: E402
from keras_skim.models.scornn.scornn_optimizer import scornn_optimizer  # noqa: E402


# ----------------------------------------------------------------------
# data
# ----------------------------------------------------------------------
def copying_batch(rng, batch, T, n_symbols=8, length=10):
    """Inputs one-hot (batch, T + 20, 10), targets int (batch, T + 20).

    Classes: 0 blank, 1..8 letters, 9 marker ("start copying").
    """
    seq = rng.integers(1, n_symbols + 1, size=(batch, length))
    total = T + 2 * length
    x = np.zeros((batch, total), dtype="int32")
    y = np.zeros((batch, total), dtype="int32")
    x[:, :length] = seq
    x[:, T + length - 1] = n_symbols + 1
    y[:, -length:] = seq
    onehot = np.eye(n_symbols + 2, dtype="float32")[x]
    return onehot, y


def adding_batch(rng, batch, T):
    """Inputs (batch, T, 2): values U[0, 1] and a marker; targets (batch, 1)."""
    values = rng.uniform(size=(batch, T)).astype("float32")
    markers = np.zeros((batch, T), dtype="float32")
    half = T // 2
    first = rng.integers(0, half, size=batch)
    second = rng.integers(half, T, size=batch)
    rows = np.arange(batch)
    markers[rows, first] = 1.0
    markers[rows, second] = 1.0
    x = np.stack([values, markers], axis=-1)
    y = (values[rows, first] + values[rows, second])[:, None]
    return x, y.astype("float32")


def batches(fn, seed, *args):
    rng = np.random.default_rng(seed)
    while True:
        yield fn(rng, *args)


# ----------------------------------------------------------------------
# models
# ----------------------------------------------------------------------
def scornn_model(n, rho, input_dim, head, return_sequences, seed):
    return keras.Sequential(
        [
            keras.Input((None, input_dim)),
            keras.layers.RNN(
                ScoRNNCell(n, rho=rho, seed=seed),
                return_sequences=return_sequences,
            ),
            head,
        ]
    )


# Hidden units of each model per task: the paper's sizes where the paper
# matched parameter counts (copying, adding); a model missing here gets the
# parameter count of the scoRNN layer. For MNIST the paper's LSTM has
# n = 128 (4x the scoRNN's parameters); we compare at matched counts
# (n = 60) and `--n 128` gives the paper's size.
PAPER_UNITS = {
    "copying": {"scornn": 190, "lstm": 68},
    "adding": {"scornn": 170, "lstm": 60},
    "mnist": {"scornn": 170},
}


def resolve_units(args, task, input_dim):
    if args.n is not None:
        return args.n
    table = PAPER_UNITS[task]
    if args.model in table:
        return table[args.model]
    target = rnn_parameters("scornn", table["scornn"], input_dim)
    return matched_units(args.model, target, input_dim)


def resolve_rho(args, task_default):
    """`--rho` or the task's default for scoRNN runs; None for baselines."""
    if args.model != "scornn":
        return None
    return args.rho if args.rho is not None else task_default


def task_model(args, n, rho, input_dim, head, return_sequences):
    """`--model`: scornn (ScoRNNCell in keras.layers.RNN), lstm, simple_rnn."""
    # Seeds every initializer (the cell's `seed` covers only A and dropout).
    keras.utils.set_random_seed(args.seed)
    if args.model == "scornn":
        return scornn_model(n, rho, input_dim, head, return_sequences, args.seed)
    layer_cls = {"lstm": keras.layers.LSTM, "simple_rnn": keras.layers.SimpleRNN}[args.model]
    return keras.Sequential(
        [
            keras.Input((None, input_dim)),
            layer_cls(n, return_sequences=return_sequences),
            head,
        ]
    )


def compile_task_model(model, args, loss, metrics=None):
    """scoRNN: `compile_scornn`; baselines: RMSprop `--lr` for all weights."""
    if args.model == "scornn":
        return compile_scornn(model, args, loss, metrics)
    model.compile(
        optimizer=keras.optimizers.RMSprop(args.lr),
        loss=loss,
        metrics=metrics,
        jit_compile=args.jit_compile,
    )


def compile_scornn(model, args, loss, metrics=None):
    model.compile(
        optimizer=scornn_optimizer(
            optimizer=keras.optimizers.RMSprop(args.lr),
            skew_optimizer=keras.optimizers.RMSprop(args.skew_lr),
        ),
        loss=loss,
        metrics=metrics,
        jit_compile=args.jit_compile,
    )


def fit_stream(model, stream, args):
    """Trains for `args.steps` batches, logging every `args.eval_every`."""
    chunk = max(1, min(args.eval_every, args.steps))
    epochs = max(1, args.steps // chunk)
    start = time.perf_counter()
    history = model.fit(
        stream,
        steps_per_epoch=chunk,
        epochs=epochs,
        verbose=2 if args.verbose else 0,
    )
    seconds = time.perf_counter() - start
    log = [{"step": (i + 1) * chunk, **{k: float(v[i]) for k, v in history.history.items()}} for i in range(epochs)]
    return log, seconds, chunk * epochs


def orthogonality(model):
    if not hasattr(model.layers[0].cell, "recurrent_matrix"):
        return None
    w = keras.ops.convert_to_numpy(model.layers[0].cell.recurrent_matrix())
    w = w.astype("float64")
    return float(np.linalg.norm(w.T @ w - np.eye(w.shape[0])))


# ----------------------------------------------------------------------
# tasks
# ----------------------------------------------------------------------
def run_copying(args):
    T, n = args.T, resolve_units(args, "copying", 10)
    rho = resolve_rho(args, n // 2)
    model = task_model(args, n, rho, 10, keras.layers.Dense(10), True)
    compile_task_model(
        model,
        args,
        keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    stream = batches(copying_batch, args.seed, args.batch_size, T)
    log, seconds, steps = fit_stream(model, stream, args)
    x, y = copying_batch(np.random.default_rng(args.seed + 1), 512, T)
    logits = model.predict(x, batch_size=128, verbose=0)
    ce = float(
        keras.ops.convert_to_numpy(keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True)).mean()
    )
    copied = (logits[:, -10:].argmax(-1) == y[:, -10:]).mean()
    return {
        "task": "copying",
        "model": args.model,
        "T": T,
        "n": n,
        "rho": rho,
        "steps": steps,
        "train_seconds": seconds,
        "test_cross_entropy": ce,
        "test_copied_symbol_accuracy": float(copied),
        "baseline_cross_entropy": 10 * math.log(8) / (T + 20),
        "orthogonality_error": orthogonality(model),
        "parameters": model.count_params(),
        "log": log,
    }


def run_adding(args):
    T, n = args.T, resolve_units(args, "adding", 2)
    rho = resolve_rho(args, 7 * n // 10 if T >= 400 else n // 2)
    model = task_model(args, n, rho, 2, keras.layers.Dense(1), False)
    compile_task_model(model, args, "mse")
    stream = batches(adding_batch, args.seed, args.batch_size, T)
    log, seconds, steps = fit_stream(model, stream, args)
    x, y = adding_batch(np.random.default_rng(args.seed + 1), 1000, T)
    pred = model.predict(x, batch_size=250, verbose=0)
    return {
        "task": "adding",
        "model": args.model,
        "T": T,
        "n": n,
        "rho": rho,
        "steps": steps,
        "train_seconds": seconds,
        "test_mse": float(np.mean((pred - y) ** 2)),
        "baseline_mse": float(np.mean((1.0 - y) ** 2)),
        "baseline_mse_theory": 1.0 / 6.0,
        "orthogonality_error": orthogonality(model),
        "parameters": model.count_params(),
        "log": log,
    }


def run_mnist(args):
    from keras_skim.datasets.mnist_digits import load_mnist_digits

    def load(split, limit):
        kwargs = {"limit": limit} if limit else {}
        images, labels = load_mnist_digits(split, **kwargs)
        return np.asarray(images, "float32"), np.asarray(labels, "int32")

    x_train, y_train = load("train", args.limit)
    x_test, y_test = load("test", args.test_limit)
    if args.permuted:
        perm = np.random.default_rng(args.permutation_seed).permutation(784)
        x_train, x_test = x_train[:, perm], x_test[:, perm]
    x_train = x_train.reshape(-1, 784, 1)
    x_test = x_test.reshape(-1, 784, 1)
    n = resolve_units(args, "mnist", 1)
    rho = resolve_rho(args, n // 2 if args.permuted else n // 10)
    model = task_model(args, n, rho, 1, keras.layers.Dense(10), False)
    compile_task_model(
        model,
        args,
        keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    start = time.perf_counter()
    history = model.fit(
        x_train,
        y_train,
        batch_size=args.batch_size,
        epochs=args.epochs,
        validation_data=(x_test, y_test),
        verbose=2 if args.verbose else 0,
    )
    seconds = time.perf_counter() - start
    loss, acc = model.evaluate(x_test, y_test, batch_size=256, verbose=0)
    return {
        "task": "permuted_mnist" if args.permuted else "mnist",
        "model": args.model,
        "n": n,
        "rho": rho,
        "epochs": args.epochs,
        "batch_size": args.batch_size,
        "train_steps": int(math.ceil(len(x_train) / args.batch_size)) * args.epochs,
        "train_examples": int(len(x_train)),
        "test_examples": int(len(x_test)),
        "train_seconds": seconds,
        "test_loss": float(loss),
        "test_accuracy": float(acc),
        "orthogonality_error": orthogonality(model),
        "parameters": model.count_params(),
        "log": [{"epoch": i + 1, **{k: float(v[i]) for k, v in history.history.items()}} for i in range(args.epochs)],
    }


def run_mnist_model(args):
    """`mnist-model`: the paper's protocol into a model folder (`train_pixel_mnist`), resumable."""
    from keras_skim.cli.errors import CliError
    from keras_skim.cli.run_args import check_run_name, run_options
    from keras_skim.contracts import ContractError
    from keras_skim.models.scornn.pixel_mnist_training import PixelMnistConfig, train_pixel_mnist
    from keras_skim.training.run_checkpoint import CheckpointError, default_run_name, runs_root

    config = PixelMnistConfig(
        units=args.n,
        rho=args.rho,
        epochs=args.epochs,
        batch_size=args.batch_size,
        learning_rate=args.lr,
        skew_learning_rate=args.skew_lr,
        permutation_seed=args.permutation_seed if args.permuted else None,
        seed=args.seed,
        limit=args.limit,
    )
    try:
        check_run_name(args.run_name)
    except CliError as err:
        print(f"scornn_tasks.py mnist-model: error: {err}", file=sys.stderr)
        raise SystemExit(2) from None
    run = run_options(args, os.path.join(runs_root(), default_run_name(args.output)))
    try:
        record = train_pixel_mnist(args.output, config, force=args.force, verbose=0 if args.quiet else 1, **run)
    except (CheckpointError, ContractError, ValueError) as err:
        print(f"scornn_tasks.py mnist-model: error: {err}", file=sys.stderr)
        raise SystemExit(2) from None
    except KeyboardInterrupt:
        print(f"scornn_tasks.py mnist-model: interrupted; run the same command to resume ({run['run_dir']})")
        raise SystemExit(130) from None
    history = record["history"]
    return {
        "task": "permuted_mnist_model" if args.permuted else "mnist_model",
        "model": "scornn",
        "output": os.path.abspath(args.output),
        "run_dir": run["run_dir"],
        "n": config.units,
        "rho": config.resolved_rho,
        "epochs": record["epochs_run"],
        "batch_size": config.batch_size,
        "best_epoch": record["best_epoch"],
        "train_examples": record["train_examples"],
        "validation_examples": record["validation"]["examples"],
        "test_examples": record["test"]["examples"],
        "validation_accuracy": record["validation"]["accuracy"],
        "test_accuracy": record["test"]["accuracy"],
        "test_loss": record["test"]["loss"],
        "seconds_per_epoch": record["seconds_per_epoch"],
        "log": [{"epoch": i + 1, **{k: float(v[i]) for k, v in history.items()}} for i in range(record["epochs_run"])],
    }


class _PerStepScoRNNCell(ScoRNNCell):
    """ScoRNNCell that re-forms W at every step (speed comparison only)."""

    def get_recurrent_dropout_mask(self, step_input):
        # Skip ScoRNNCell's pre-loop hook: only the dropout-mask logic.
        return super(ScoRNNCell, self).get_recurrent_dropout_mask(step_input)


class _ReferenceModReLUScoRNNCell(ScoRNNCell):
    """ScoRNNCell with the autodiff modReLU (speed comparison only)."""

    _fast_tf_modrelu = False


def rnn_parameters(kind, units, input_dim):
    if kind == "scornn":  # U, A, b, b_mod
        return input_dim * units + units * (units - 1) // 2 + 2 * units
    if kind == "simple_rnn":
        return input_dim * units + units * units + units
    if kind == "lstm":
        return 4 * (input_dim * units + units * units + units)
    raise ValueError(kind)


def matched_units(kind, target, input_dim):
    best = min(
        range(1, 4 * int(math.sqrt(target)) + 8),
        key=lambda u: abs(rnn_parameters(kind, u, input_dim) - target),
    )
    return best


def run_speed(args):
    import tensorflow as tf

    T, n, batch, input_dim = args.T, args.n, args.batch_size, 2
    target = rnn_parameters("scornn", n, input_dim)
    units = {
        "scornn": n,
        "scornn_w_per_step": n,
        "scornn_autodiff_modrelu": n,
        "simple_rnn": matched_units("simple_rnn", target, input_dim),
        "simple_rnn_same_width": n,
        "lstm": matched_units("lstm", target, input_dim),
    }
    rho = args.rho if args.rho is not None else n // 2

    def make(kind):
        if kind == "scornn":
            layer = keras.layers.RNN(ScoRNNCell(n, rho=rho, seed=args.seed))
        elif kind == "scornn_w_per_step":
            layer = keras.layers.RNN(_PerStepScoRNNCell(n, rho=rho, seed=args.seed))
        elif kind == "scornn_autodiff_modrelu":
            layer = keras.layers.RNN(_ReferenceModReLUScoRNNCell(n, rho=rho, seed=args.seed))
        elif kind.startswith("simple_rnn"):
            layer = keras.layers.SimpleRNN(units[kind])
        else:
            layer = keras.layers.LSTM(units[kind])
        model = keras.Sequential([keras.Input((T, input_dim)), layer, keras.layers.Dense(1)])
        if kind.startswith("scornn"):
            compile_scornn(model, args, "mse")
        else:
            model.compile(
                optimizer=keras.optimizers.RMSprop(args.lr),
                loss="mse",
                jit_compile=args.jit_compile,
            )
        return model

    x, y = adding_batch(np.random.default_rng(args.seed), batch, T)
    kinds = list(units)
    if args.skip_per_step:
        kinds.remove("scornn_w_per_step")
    models = {k: make(k) for k in kinds}
    for model in models.values():  # trace + warm up
        for _ in range(args.warmup):
            model.train_on_batch(x, y)
    times = {k: [] for k in kinds}
    cpu_times = {k: [] for k in kinds}
    # interleave the models so that load changes hit all of them alike
    for _ in range(args.repeats):
        for kind, model in models.items():
            start, cpu = time.perf_counter(), time.process_time()
            model.train_on_batch(x, y)
            times[kind].append(time.perf_counter() - start)
            cpu_times[kind].append(time.process_time() - cpu)
    medians = {k: statistics.median(v) for k, v in times.items()}
    rows = []
    for kind in kinds:
        layer = models[kind].layers[0]
        rows.append(
            {
                "model": kind,
                "units": units[kind],
                "rnn_parameters": int(layer.count_params()),
                "median_seconds_per_batch": medians[kind],
                "min_seconds_per_batch": min(times[kind]),
                "ratio_to_scornn": medians[kind] / medians["scornn"],
                "ratio_to_simple_rnn": medians[kind] / medians["simple_rnn"],
            }
        )
    return {
        "task": "speed",
        "T": T,
        "n": n,
        "rho": rho,
        "batch_size": batch,
        "input_dim": input_dim,
        "repeats": args.repeats,
        "warmup": args.warmup,
        "jit_compile": args.jit_compile,
        "tf_intra_op_threads": tf.config.threading.get_intra_op_parallelism_threads(),
        "process_cpu_seconds_median": {k: statistics.median(v) for k, v in cpu_times.items()},
        "rows": rows,
        "times": times,
    }


# ----------------------------------------------------------------------
# reporting
# ----------------------------------------------------------------------
def environment():
    import tensorflow as tf

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": f"{platform.node()} {cpu}, {os.cpu_count()} logical CPUs",
        "platform": platform.platform(),
        "python": platform.python_version(),
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "numpy": np.__version__,
        "gpus": [d.name for d in tf.config.list_physical_devices("GPU")],
        "command": "python " + " ".join(shlex.quote(a) for a in sys.argv),
    }


def markdown(result, env):
    lines = [f"# scoRNN benchmark: {result['task']}", ""]
    for key in ("date", "machine", "platform", "python", "tensorflow", "keras", "numpy", "gpus"):
        lines.append(f"- {key}: {env[key]}")
    lines += [f"- command: `{env['command']}`", ""]
    if result["task"] == "speed":
        lines += [
            f"T = {result['T']}, batch = {result['batch_size']}, "
            f"input dim = {result['input_dim']}, median of "
            f"{result['repeats']} timed `train_on_batch` calls per model "
            f"(interleaved, after {result['warmup']} warm-up calls), "
            f"XLA {'on' if result.get('jit_compile') else 'off'}.",
            "",
            "| model | units | RNN parameters | median s/batch | min s/batch | time / ScoRNN | time / SimpleRNN |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for r in result["rows"]:
            lines.append(
                f"| {r['model']} | {r['units']} | {r['rnn_parameters']} "
                f"| {r['median_seconds_per_batch']:.4f} "
                f"| {r['min_seconds_per_batch']:.4f} "
                f"| {r['ratio_to_scornn']:.2f} "
                f"| {r['ratio_to_simple_rnn']:.2f} |"
            )
    else:
        lines += ["| quantity | value |", "|---|---|"]
        for key, value in result.items():
            if key in ("log", "task"):
                continue
            if isinstance(value, float):
                value = f"{value:.6g}"
            lines.append(f"| {key} | {value} |")
        if result.get("log"):
            keys = list(result["log"][0])
            lines += ["", "Training log:", "", "| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
            for entry in result["log"]:
                lines.append(
                    "| "
                    + " | ".join(f"{entry[k]:.5g}" if isinstance(entry[k], float) else str(entry[k]) for k in keys)
                    + " |"
                )
    return "\n".join(lines) + "\n"


def save(result, args):
    env = environment()
    out = pathlib.Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    name = result["task"]
    if getattr(args, "model", "scornn") != "scornn" and result["task"] != "speed":
        name += f"-{args.model}"
    name += f"-{args.tag}" if args.tag else ""
    (out / f"{name}.json").write_text(
        json.dumps({"environment": env, "arguments": vars(args), "result": result}, indent=2, default=str)
    )
    (out / f"{name}.md").write_text(markdown(result, env))
    return out / f"{name}.json", out / f"{name}.md"


def parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    def common(sp, n, batch, T=None):
        sp.add_argument(
            "--n",
            type=int,
            default=n,
            help="hidden units (default: the paper's size for "
            "--model, SimpleRNN matched to the scoRNN "
            "parameter count)",
        )
        sp.add_argument("--model", choices=("scornn", "lstm", "simple_rnn"), default="scornn")
        sp.add_argument("--threads", type=int, default=0, help="TensorFlow intra/inter-op threads (0: default)")
        sp.add_argument("--rho", type=int, default=None, help="number of -1 entries of D (task default)")
        sp.add_argument("--batch-size", type=int, default=batch)
        if T is not None:
            sp.add_argument("--T", type=int, default=T, help="sequence length")
        sp.add_argument("--lr", type=float, default=1e-3)
        sp.add_argument("--skew-lr", type=float, default=1e-4)
        sp.add_argument("--seed", type=int, default=0)
        sp.add_argument("--out-dir", default=str(ROOT / "benchmarks" / "results"))
        sp.add_argument("--tag", default="", help="suffix of the result files")
        sp.add_argument("--verbose", action="store_true")
        sp.add_argument(
            "--jit-compile",
            action="store_true",
            help="compile the train step with XLA (Keras' default only where a GPU is present)",
        )

    sp = sub.add_parser("copying", help="copying memory task")
    common(sp, None, 20, T=1000)
    sp.add_argument("--steps", type=int, default=4000)
    sp.add_argument("--eval-every", type=int, default=100)

    sp = sub.add_parser("adding", help="adding task")
    common(sp, None, 50, T=200)
    sp.add_argument("--steps", type=int, default=12000)
    sp.add_argument("--eval-every", type=int, default=100)

    sp = sub.add_parser("mnist", help="pixel-by-pixel (permuted) MNIST")
    common(sp, None, 50)
    sp.add_argument("--permuted", action="store_true")
    sp.add_argument("--permutation-seed", type=int, default=1234)
    sp.add_argument("--epochs", type=int, default=70)
    sp.add_argument("--limit", type=int, default=None, help="class-balanced subset of the training set")
    sp.add_argument("--test-limit", type=int, default=None)

    sp = sub.add_parser(
        "mnist-model",
        help="pixel-by-pixel (permuted) MNIST with the paper's protocol (validation-selected epoch, test once) "
        "into a model folder; resumable",
    )
    for flag, kind, default in (("--n", int, 170), ("--rho", int, None), ("--epochs", int, 70)):
        sp.add_argument(flag, type=kind, default=default)
    sp.add_argument("--batch-size", type=int, default=50)
    sp.add_argument("--lr", type=float, default=1e-3, help="RMSprop's rate for every weight but A")
    sp.add_argument("--skew-lr", type=float, default=1e-4, help="RMSprop's rate for the skew-symmetric A")
    sp.add_argument("--permuted", action="store_true")
    sp.add_argument("--permutation-seed", type=int, default=1234)
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--limit", type=int, default=None, help="class-balanced subset of the training set")
    sp.add_argument("--threads", type=int, default=0, help="TensorFlow intra/inter-op threads (0: default)")
    sp.add_argument("-o", "--output", required=True, help="the model folder to write")
    sp.add_argument("--force", action="store_true", help="replace the model folder (without --resume: start over)")
    sp.add_argument("--resume", action="store_true", help="continue the run from its checkpoint, or start it")
    sp.add_argument("--run-name", default=None, help="checkpoint folder under ~/.cache/keras_skim/runs")
    sp.add_argument("--quiet", action="store_true", help="no line per epoch")
    sp.add_argument("--out-dir", default=str(ROOT / "benchmarks" / "results"))
    sp.add_argument("--tag", default="", help="suffix of the result files")

    sp = sub.add_parser("speed", help="time per batch vs SimpleRNN / LSTM")
    common(sp, 170, 50, T=200)
    sp.add_argument("--repeats", type=int, default=10)
    sp.add_argument("--warmup", type=int, default=2)
    sp.add_argument("--skip-per-step", action="store_true", help="leave out the W-per-step ScoRNN variant")
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    if args.threads:
        import tensorflow as tf

        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(args.threads)
    run = {
        "copying": run_copying,
        "adding": run_adding,
        "mnist": run_mnist,
        "mnist-model": run_mnist_model,
        "speed": run_speed,
    }[args.command]
    result = run(args)
    paths = save(result, args)
    summary = {k: v for k, v in result.items() if k not in ("log", "times")}
    print(json.dumps(summary, indent=2, default=str))
    print("wrote", *paths)


if __name__ == "__main__":
    main()
