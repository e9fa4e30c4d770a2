"""The runtime's per-call fixed cost: the intercept of time per text against
its tokens, through `keras_skim.runtime.SkimRunner` (what `keras-skim bench`
and an app's Python server run), batch 1, one thread.

Texts of `--lengths` tokens (random ids) run through two exports of the demo
size: the Skim-LSTM custom-op export (`KerasSkimLSTM`, LiteRT C API through
keras-skim's ctypes runner) and the LSTM builtin export (ai-edge-litert's
Python `Interpreter`); by default the bundled demo exports of the Android app
(d=100, d'=10, e=50, V=8000, int8 weights), so no TensorFlow is needed. Per
export and length, the median over `--repeats` calls of:

- `invoke`: `SkimRunner.invoke` on inputs `prepare` checked, the call
  `keras-skim bench` times;
- `run_ids`: `SkimRunner.run_ids`, the checks and the call;
- `invoke, same length`: `invoke` with the length unchanged from the previous
  call (no input resize): the other patterns run the lengths in turn, so every
  call resizes, as a bench over real texts does.

A least-squares line through the medians gives the intercept (us per text)
and the slope (us per token). The LSTM builtin export's per-token cost jumps
about 8x from 400 tokens (measured here: 4.3 us at 350, 35 us at 400 and
800 tokens on the int8 demo export), which no line fits, so the default
lengths stop at 200.

Before and after: `--before REV` measures the keras_skim package of commit
REV too (`git archive` into a temporary folder; the op library built in this
checkout is used by both, which `keras_skim.litert_ops` allows only when REV
has the same C++ sources), each version in its own process, the versions
alternating for `--rounds` rounds; a length's time is the median over the
rounds of its per-round medians.

    python benchmarks/runtime_fixed_cost.py --before 25279a6 [--rounds 3] [--repeats 200]

Writes benchmarks/results/runtime_fixed_cost.json and .md.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEMO = os.path.join(ROOT, "android_demo", "app", "src", "main", "assets", "keras_skim")
LENGTHS = (5, 10, 20, 35, 50, 75, 100, 150, 200)
PATTERNS = ("invoke", "run_ids", "invoke, same length")


# ------------------------------------------------------------------ one process
def _timed(call):
    start = time.perf_counter_ns()
    call()
    return (time.perf_counter_ns() - start) / 1e3


def measure(export, lengths, repeats, seed=0):
    """{pattern: {length: median us}} of one export in this process."""
    from keras_skim.runtime.runner import SkimRunner

    runner = SkimRunner(export, num_threads=1)
    rng = np.random.default_rng(seed)
    ids = {n: rng.integers(1, runner.vocabulary_size, n).astype(np.int32) for n in lengths}
    prepared = {n: runner.prepare(ids[n]) for n in lengths}
    calls = {
        "invoke": {n: (lambda n=n: runner.invoke(*prepared[n])) for n in lengths},
        "run_ids": {n: (lambda n=n: runner.run_ids(ids[n])) for n in lengths},
    }
    times = {pattern: {n: [] for n in lengths} for pattern in PATTERNS}
    for call in calls["invoke"].values():  # warm-up
        call()
    for r in range(repeats):
        order = list(lengths) if r % 2 == 0 else list(lengths)[::-1]
        for pattern, by_length in calls.items():
            for n in order:
                times[pattern][n].append(_timed(by_length[n]))
    for n in lengths:  # the length unchanged from one call to the next
        call = calls["invoke"][n]
        call()
        times["invoke, same length"][n] = [_timed(call) for _ in range(repeats)]
    return {pattern: {n: float(np.median(v)) for n, v in by_length.items()} for pattern, by_length in times.items()}


def child(args):
    import keras_skim

    result = {
        "keras_skim": os.path.dirname(os.path.abspath(keras_skim.__file__)),
        "exports": {name: measure(path, args.lengths, args.repeats) for name, path in _exports(args).items()},
    }
    json.dump(result, sys.stdout)


# ------------------------------------------------------------------ the parent
def _exports(args):
    return {"skim_lstm_custom": args.skim, "lstm_builtin": args.lstm}


def fit(medians):
    """(intercept us per text, slope us per token) of a least-squares line."""
    lengths = sorted(medians)
    slope, intercept = np.polyfit(lengths, [medians[n] for n in lengths], 1)
    return float(intercept), float(slope)


def old_tree(rev, folder):
    """The keras_skim package of commit `rev` under `folder`, with the op
    library built in this checkout (refused by keras_skim.litert_ops at load
    if the commit's C++ sources differ)."""
    archive = subprocess.run(["git", "-C", ROOT, "archive", rev, "keras_skim"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
    ops = os.path.join(ROOT, "keras_skim", "litert_ops")
    for name in ("libkeras_skim_ops.so", "libkeras_skim_ops.json"):
        shutil.copy(os.path.join(ops, name), os.path.join(folder, "keras_skim", "litert_ops", name))
    return folder


def run_child(tree, args):
    env = dict(os.environ, PYTHONPATH=tree)
    env.pop("KERAS_SKIM_OPS_DIR", None)
    argv = [sys.executable, os.path.abspath(__file__), "--child", "--repeats", str(args.repeats)]
    argv += ["--lengths", ",".join(map(str, args.lengths)), "--skim", args.skim, "--lstm", args.lstm]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tree, check=False)
    if done.returncode:
        raise SystemExit(f"measuring {tree} failed: {done.stderr.strip().splitlines()[-1:]}")
    result = json.loads(done.stdout)
    expected = os.path.join(tree, "keras_skim")
    if os.path.realpath(result["keras_skim"]) != os.path.realpath(expected):
        raise SystemExit(f"the child imported {result['keras_skim']}, not {expected}")
    return result["exports"]


def combine(rounds):
    """{export: {pattern: {length: median over rounds}}}."""
    first = rounds[0]
    return {
        export: {
            pattern: {n: float(np.median([r[export][pattern][n] for r in rounds])) for n in first[export][pattern]}
            for pattern in first[export]
        }
        for export in first
    }


def summarize(medians):
    return {
        export: {
            pattern: dict(zip(("intercept_us", "slope_us_per_token"), fit({int(n): t for n, t in by_length.items()})))
            for pattern, by_length in patterns.items()
        }
        for export, patterns in medians.items()
    }


def markdown(report):
    lines = [
        "# Per-call fixed cost of the runtime (intercept of time per text against tokens)",
        "",
        f"- command: `{report['command']}`",
        f"- machine: {report['machine']}",
        f"- versions: {', '.join(f'{k} {v}' for k, v in report['versions'].items())}",
        f"- exports: {', '.join(f'{k} `{v}`' for k, v in report['exports'].items())}",
        f"- setup: batch 1, one thread, lengths {', '.join(map(str, report['lengths']))} tokens (random ids), "
        f"{report['repeats']} calls per length and pattern, medians; {report['rounds']} round(s), "
        "versions alternating, a fresh process each; line fitted by least squares through the medians",
        "",
        "| version | export | pattern | intercept us/text | slope us/token | us at 23 tokens | fixed share at 23 |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for version, fits in report["fits"].items():
        for export, patterns in fits.items():
            for pattern, f in patterns.items():
                at = f["intercept_us"] + 23 * f["slope_us_per_token"]
                lines.append(
                    f"| {version} | {export} | {pattern} | {f['intercept_us']:.1f} | "
                    f"{f['slope_us_per_token']:.3f} | {at:.1f} | {f['intercept_us'] / at:.0%} |"
                )
    lines += ["", "Medians per length (us per text):", ""]
    lengths = report["lengths"]
    lines += ["| version | export | pattern | " + " | ".join(map(str, lengths)) + " |"]
    lines += ["|---|---|---|" + "---:|" * len(lengths)]
    for version, medians in report["medians"].items():
        for export, patterns in medians.items():
            for pattern, by_length in patterns.items():
                cells = " | ".join(f"{by_length[str(n)] if str(n) in by_length else by_length[n]:.1f}" for n in lengths)
                lines.append(f"| {version} | {export} | {pattern} | {cells} |")
    lines += ["", report["note"], ""]
    return "\n".join(lines)


def parse(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skim", default=os.path.join(DEMO, "skim_lstm_custom"), help="Skim-LSTM custom-op export")
    parser.add_argument("--lstm", default=os.path.join(DEMO, "lstm_builtin"), help="LSTM builtin export")
    parser.add_argument("--lengths", type=lambda s: [int(x) for x in s.split(",")], default=list(LENGTHS))
    parser.add_argument("--repeats", type=int, default=200, help="calls per length and pattern (default 200)")
    parser.add_argument("--rounds", type=int, default=3, help="processes per version (default 3)")
    parser.add_argument("--before", metavar="REV", help="also measure the keras_skim of this commit")
    parser.add_argument("-o", "--output", default=os.path.join(HERE, "results", "runtime_fixed_cost"))
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse(argv)
    if args.child:
        return child(args)
    import platform

    from keras_skim.runtime.interpreter_loader import runtime_versions

    load_at_start = [round(x, 2) for x in os.getloadavg()]
    versions = {"after": ROOT}
    with tempfile.TemporaryDirectory() as tmp:
        if args.before:
            versions = {"before": old_tree(args.before, tmp), "after": ROOT}
        rounds = {name: [] for name in versions}
        for r in range(args.rounds):
            order = list(versions) if r % 2 == 0 else list(versions)[::-1]
            for name in order:
                rounds[name].append(run_child(versions[name], args))
                print(f"round {r + 1}: {name} done", file=sys.stderr)
    medians = {name: combine(rs) for name, rs in rounds.items()}
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    report = {
        "command": " ".join([os.path.basename(sys.executable)] + [os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:]),
        "machine": (
            f"{platform.platform()}, {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
            f"Python {platform.python_version()}; load average {load_at_start} at start, "
            f"{[round(x, 2) for x in os.getloadavg()]} at end"
        ),
        "versions": dict(runtime_versions(), keras_skim_after=head.stdout.strip() + " (working tree)")
        | ({"keras_skim_before": args.before} if args.before else {}),
        "exports": {k: os.path.relpath(v, ROOT) for k, v in _exports(args).items()},
        "lengths": args.lengths,
        "repeats": args.repeats,
        "rounds": args.rounds,
        "medians": medians,
        "fits": {name: summarize(m) for name, m in medians.items()},
        "rounds_raw": rounds,
        "note": (
            "`invoke` is the call `keras-skim bench` times; `run_ids` adds the input checks of `prepare`; "
            "`invoke, same length` repeats one length, so no input is resized between calls. The LSTM export "
            "runs on ai-edge-litert's Python Interpreter (builtin ops only: `interpreter_loader`), whose own "
            "per-call work keras-skim does not control."
        ),
    }
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output + ".json", "w") as f:
        json.dump(report, f, indent=1)
    text = markdown(report)
    with open(args.output + ".md", "w") as f:
        f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
