"""The skim loss's share of the gate-bias gradient in one `model.fit` step,
and how far the step's gradients are from the paper's loss written out by
hand, in each training setting (issue 8, item 11).

For each setting, one fit step is run with gamma = 0.01 (the cell's default;
env SKIM_SHARE_GAMMA changes it) and with gamma = 0 (same
weights, same Gumbel noise), and the explicit loss (task loss + gamma * eq. 8,
recomputed outside the recurrent loop) is differentiated on the same layers:

    share    = |g_skim| / (|g_skim| + |g(gamma=0)|) on the gate biases of all
               skim cells, where g_skim = g(gamma) - g(gamma=0) is the skim
               term's part of the gradient
    expected = the same ratio for the explicit loss's gradients
    error    = max over all trainable weights of |g_fit - g_explicit| / |g_explicit|

Run:  PYTHONPATH=$PWD python benchmarks/skim_loss_share.py [--label after]
("before": PYTHONPATH=<an export of the old keras_skim>:$PWD ... --label before)
Writes benchmarks/results/skim_loss_share_<label>.json and .md. The mirrored
setting runs in a subprocess on two logical CPUs.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import traceback

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

GAMMA = float(os.environ.get("SKIM_SHARE_GAMMA", "0.01"))

SETTINGS = {
    "plain (last output)": dict(architecture="last"),
    "loss scale 1024": dict(architecture="last", loss_scale=1024.0),
    "half the batch at sample weight 0": dict(architecture="last", half_weights=True),
    "only the first step's output": dict(architecture="first"),
    "full sequence, masked mean": dict(architecture="sequence"),
    "Bidirectional": dict(architecture="bidirectional"),
    "stacked RNN layers": dict(architecture="stacked"),
    "StackedRNNCells": dict(architecture="stacked_cells"),
    "no mask": dict(architecture="last", mask_zero=False),
    "a sequence without real tokens": dict(architecture="last", empty_row=True),
    "mixed_float16 (compile adds LossScaleOptimizer, 2**15)": dict(architecture="last", mixed=True),
    "MirroredStrategy, 2 CPUs": dict(architecture="last", mirrored=True),
}


def measure(
    architecture, loss_scale=None, half_weights=False, mask_zero=True, mixed=False, strategy=None, empty_row=False
):
    import keras
    import numpy as np

    from tests.training import skim_loss_reference as ref

    if mixed:
        keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        ids, labels = ref.toy_batch(empty_row=empty_row)
        weights = np.where(np.arange(len(ids)) % 2 == 0, 1.0, 0.0).astype("float32") if half_weights else None
        grads = {}
        for gamma in (GAMMA, 0.0):
            keras.utils.set_random_seed(0)
            if strategy is not None:
                with strategy.scope():
                    model, parts = ref.build(architecture, gamma, mask_zero=mask_zero)
            else:
                model, parts = ref.build(architecture, gamma, mask_zero=mask_zero)
            saved = ref.snapshot(model, parts)
            grads[gamma], history = ref.fit_gradients(model, ids, labels, weights, loss_scale)
            if gamma == GAMMA:
                logs = {k: float(v[0]) for k, v in history.items()}
                ref.restore(model, parts, saved)
                if strategy is None:
                    explicit, task, skim = ref.reference_gradients(
                        model, parts, architecture, ids, labels, GAMMA, weights
                    )
                else:
                    explicit, task, skim = _replica_reference(
                        ref,
                        model,
                        parts,
                        architecture,
                        ids,
                        labels,
                        saved,
                        strategy.num_replicas_in_sync,
                    )
                gates = ref.gate_bias_indices(model)
        skim_part = [grads[GAMMA][i] - grads[0.0][i] for i in gates]
        task_part = [grads[0.0][i] for i in gates]
        return {
            "share": _share(skim_part, task_part),
            "expected": _share([explicit[i] - grads[0.0][i] for i in gates], task_part),
            "error": ref.relative_error(grads[GAMMA], explicit),
            "logged_loss": logs.get("loss"),
            "logged_skim_loss": logs.get("skim_loss"),
            "explicit_loss": task + skim,
            "explicit_skim_loss": skim,
        }
    finally:
        if mixed:
            keras.mixed_precision.set_global_policy("float32")


def _replica_reference(ref, model, parts, architecture, ids, labels, saved, replicas):
    """Each replica runs its shard of the batch with the same noise state:
    the explicit loss is the mean of the shards' losses."""
    import numpy as np

    shard = len(ids) // replicas
    total, task, skim = None, 0.0, 0.0
    for r in range(replicas):
        ref.restore(model, parts, saved)
        part = slice(r * shard, (r + 1) * shard)
        g, t, s = ref.reference_gradients(model, parts, architecture, ids[part], labels[part], GAMMA)
        total = g if total is None else [a + b for a, b in zip(total, g)]
        task += t / replicas
        skim += s / replicas
    return [np.asarray(a) / replicas for a in total], task, skim


def _share(skim, task):
    """|skim| / (|skim| + |task|), Frobenius norms over the gate biases."""
    import numpy as np

    s = np.sqrt(sum((p**2).sum() for p in skim))
    t = np.sqrt(sum((p**2).sum() for p in task))
    return float(s / (s + t))


def _run_one(name):
    spec = dict(SETTINGS[name])
    if spec.pop("mirrored", False):
        import tensorflow as tf

        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()]
        )
        spec["strategy"] = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    try:
        return measure(**spec)
    except Exception as error:  # a crash is a result here ("before" under mixed_float16)
        return {
            "crash": f"{type(error).__name__}: {str(error).splitlines()[0][:200]}",
            "trace": traceback.format_exc()[-1500:],
        }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default="after", help="result file suffix, e.g. before / after")
    parser.add_argument("--source", help="which keras_skim is measured (default: its path and this checkout's commit)")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(_run_one(args.one)))
        return
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""}
    results = {}
    for name in SETTINGS:
        # One process per setting: logical devices and the dtype policy are global.
        done = subprocess.run(
            [sys.executable, __file__, "--one", name], capture_output=True, text=True, env=env, timeout=900
        )
        try:
            results[name] = json.loads(done.stdout.strip().splitlines()[-1])
        except (IndexError, json.JSONDecodeError):
            results[name] = {"crash": f"exit {done.returncode}", "trace": done.stderr[-1500:]}
        print(name, json.dumps({k: v for k, v in results[name].items() if k != "trace"}), flush=True)

    from benchmarks import litert_report

    report = {
        "label": args.label,
        "keras_skim": args.source or _source(),
        "machine": litert_report.machine(),
        "versions": _versions(),
        "command": litert_report.command(),
        "settings": results,
    }
    lines = [
        f"# Skim loss share of the gate-bias gradient ({args.label})",
        "",
        f"One `model.fit` step, gamma = {GAMMA}, toy batch of 8 sequences of 8 tokens (right and "
        "left padding, a hole; tests/training/skim_loss_reference.py). share = |g_skim| / "
        "(|g_skim| + |g(gamma=0)|) on the gate biases, g_skim = g(gamma) - g(gamma=0); expected = "
        "the same with the gradient of the loss written out by hand (eq. 8 recomputed outside the "
        "loop); error = max over weights of |g_fit - g_explicit| / |g_explicit|; logged = the "
        "fit log of the step.",
        "",
        "| setting | share | expected | error | logged loss | explicit loss | logged skim_loss | explicit skim loss |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, r in results.items():
        if "crash" in r:
            lines.append(f"| {name} | crash: {r['crash']} | | | | | | |")
            continue
        lines.append(
            f"| {name} | {r['share']:.4f} | {r['expected']:.4f} | {r['error']:.1e} | "
            f"{_fmt(r['logged_loss'])} | {r['explicit_loss']:.5f} | {_fmt(r['logged_skim_loss'])} | "
            f"{r['explicit_skim_loss']:.5f} |"
        )
    lines += [
        "",
        f"keras_skim measured: {report['keras_skim']}",
        f"Machine: {report['machine']}",
        f"Versions: {report['versions']}",
        f"Command: `{report['command']}`",
    ]
    path = pathlib.Path(litert_report.RESULTS)
    path.mkdir(parents=True, exist_ok=True)
    (path / f"skim_loss_share_{args.label}.json").write_text(json.dumps(report, indent=2) + "\n")
    (path / f"skim_loss_share_{args.label}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def _source():
    import keras_skim

    path = os.path.dirname(os.path.abspath(keras_skim.__file__))
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    return f"{path} (checkout at {commit}, with its uncommitted changes if any)"


def _versions():
    import keras
    import tensorflow as tf

    return {"tensorflow": tf.__version__, "keras": keras.__version__}


def _fmt(value):
    return "-" if value is None else f"{value:.5f}"


if __name__ == "__main__":
    main()
