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
  call changes the length, as a bench over real texts does;
- `invoke, same length, other texts`: as the previous, but on 4 texts of the
  length in turn, so that what other texts cost (embedding rows not in
  cache, other read decisions) is not counted as the cost of a length change.

Since token padding (`keras_skim.runtime.token_padding`), a custom-op export
runs a text at a padded input length that most length changes keep, so
`invoke` no longer resizes the input at every call; the builtin LSTM export
runs unpadded on ai-edge-litert's Interpreter, as before.

A least-squares line through the medians gives the intercept (us per text)
and the slope (us per token). The LSTM builtin export's per-token cost jumps
about 8x from 400 tokens (measured here: 4.3 us at 350, 35 us at 400 and
800 tokens on the int8 demo export), which no line fits, so the default
lengths stop at 200.

Before and after: `--before REV` also loads the `SkimRunner` of commit REV
(its runtime/runner.py and runtime/litert_runner.py, beside the current
ones, in the same process: `before_runner_class`) and times each call of one
version next to the same call of the other, so that the load of a shared
machine hits both alike; the 10th percentiles (the calls least disturbed)
are fitted too.

    python benchmarks/runtime_fixed_cost.py --before 25279a6 [--repeats 300]

Writes benchmarks/results/runtime_fixed_cost.json and .md.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEMO = os.path.join(ROOT, "android_demo", "app", "src", "main", "assets", "keras_skim")
LENGTHS = (5, 10, 15, 20, 30, 40, 50, 75, 100)
PATTERNS = ("invoke", "run_ids", "invoke, same length", "invoke, same length, other texts")
OTHER_TEXTS = 4  # texts per length that `invoke, same length, other texts` takes in turn
C_CALL = "C call alone, same length"  # custom-op exports: the ctypes call into the C++ runner, nothing else
STATISTICS = {"median": np.median, "p10": lambda v: np.percentile(v, 10)}


# ------------------------------------------------------------------ measuring
def _timed(call):
    start = time.perf_counter_ns()
    call()
    return (time.perf_counter_ns() - start) / 1e3


def before_runner_class(rev):
    """`SkimRunner` of commit `rev`, loaded beside the current one: its
    runtime/runner.py and runtime/litert_runner.py, read with `git show`,
    as modules of their own; custom-op models go to that commit's
    `LiteRtModel`. Everything else they import (contracts, model kinds, the
    interpreter loader's checks, the op library) is this checkout's; the
    report lists how those files differ from `rev`."""
    import importlib.util

    from keras_skim.runtime import interpreter_loader

    def module(name, path):
        text = subprocess.run(["git", "-C", ROOT, "show", f"{rev}:{path}"], capture_output=True, check=True).stdout
        spec = importlib.util.spec_from_loader(name, loader=None)
        loaded = importlib.util.module_from_spec(spec)
        loaded.__file__ = f"{rev}:{path}"
        exec(compile(text, loaded.__file__, "exec"), loaded.__dict__)
        return loaded

    litert = module("_before_litert_runner", "keras_skim/runtime/litert_runner.py")
    runner = module("_before_runner", "keras_skim/runtime/runner.py")

    def make_interpreter(model_path=None, model_content=None, num_threads=1):
        data = model_content if model_content is not None else interpreter_loader.read_model_file(model_path)
        names = interpreter_loader.custom_ops(data)
        if names:
            model = litert.LiteRtModel(data, num_threads=num_threads, checked=True)
            model.custom_op_names = names  # as interpreter_loader records them, for the metadata check
            return model
        return interpreter_loader.make_interpreter(model_content=data, num_threads=num_threads)

    runner.make_interpreter = make_interpreter
    return runner.SkimRunner


def measure(runners, export, lengths, repeats, seed=0):
    """{version: {statistic: {pattern: {length: us}}}} of one export: every
    call of one version is followed by the same call of the other (which
    goes first alternates), so that a loaded machine's drift hits both."""
    made = {version: cls(export, num_threads=1) for version, cls in runners.items()}
    first = next(iter(made.values()))
    rng = np.random.default_rng(seed)
    ids = {n: rng.integers(1, first.vocabulary_size, n).astype(np.int32) for n in lengths}
    others = {
        n: [rng.integers(1, first.vocabulary_size, n).astype(np.int32) for _ in range(OTHER_TEXTS)] for n in lengths
    }
    calls = {}
    for version, runner in made.items():
        prepared = {n: runner.prepare(ids[n]) for n in lengths}
        calls[version] = {
            "invoke": {n: (lambda r=runner, p=prepared[n]: r.invoke(*p)) for n in lengths},
            "run_ids": {n: (lambda r=runner, x=ids[n]: r.run_ids(x)) for n in lengths},
        }
        calls[version]["invoke, same length"] = calls[version]["invoke"]
        calls[version]["invoke, same length, other texts"] = {
            n: _in_turn(runner, [runner.prepare(x) for x in others[n]]) for n in lengths
        }
        for call in calls[version]["invoke"].values():  # warm-up
            call()
        signature = getattr(runner, "_signature", None)
        if hasattr(signature, "_run"):  # the C API runner: the same C++ in both versions, a control
            calls[version][C_CALL] = {n: (lambda s=signature: s._run(True, True, True)) for n in lengths}
            calls[version]["fill " + C_CALL] = {n: _filler(signature, prepared[n]) for n in lengths}
    patterns = [p for p in PATTERNS + (C_CALL,) if all(p in c for c in calls.values())]
    versions = list(made)
    times = {v: {pattern: {n: [] for n in lengths} for pattern in patterns} for v in versions}

    def both(pattern, n, k):
        for version in versions if k % 2 == 0 else versions[::-1]:
            times[version][pattern][n].append(_timed(calls[version][pattern][n]))

    for r in range(repeats):  # the lengths in turn: every call resizes the input
        order = list(lengths) if r % 2 == 0 else list(lengths)[::-1]
        for pattern in ("invoke", "run_ids"):
            for k, n in enumerate(order):
                both(pattern, n, r + k)
    for n in lengths:  # one length call after call: no resize
        for r in range(repeats):
            both("invoke, same length", n, r)
        for r in range(repeats):  # other texts of that length: cold rows, other decisions, still no resize
            both("invoke, same length, other texts", n, r)
        if C_CALL in patterns:
            kept = [calls[v]["fill " + C_CALL][n]() for v in versions]  # the inputs, set once
            for r in range(repeats):
                both(C_CALL, n, r)
            del kept
    return {
        version: {
            name: {pattern: {n: float(stat(v)) for n, v in by_length.items()} for pattern, by_length in per.items()}
            for name, stat in STATISTICS.items()
        }
        for version, per in times.items()
    }


def _in_turn(runner, prepared):
    """callable() that invokes `runner` on each of `prepared` in turn."""
    state = {"k": 0}

    def call():
        k = state["k"]
        state["k"] = (k + 1) % len(prepared)
        runner.invoke(*prepared[k])

    return call


def _filler(signature, prepared):
    """callable() that points `signature`'s input structs at `prepared` and
    returns what must stay alive while they do."""
    return lambda: signature._fill({"token_ids": prepared[0], "threshold": prepared[1]})


def _exports(args):
    return {"skim_lstm_custom": args.skim, "lstm_builtin": args.lstm}


def fit(medians):
    """(intercept us per text, slope us per token) of a least-squares line."""
    lengths = sorted(medians)
    slope, intercept = np.polyfit(lengths, [medians[n] for n in lengths], 1)
    return float(intercept), float(slope)


def summarize(stats_by_export):
    """{export: {pattern: {intercept_us, slope_us_per_token, intercept_us_p10, slope_us_per_token_p10}}}."""
    out = {}
    for export, stats in stats_by_export.items():
        out[export] = {}
        for pattern in stats["median"]:
            row = out[export][pattern] = {}
            for stat, suffix in (("median", ""), ("p10", "_p10")):
                intercept, slope = fit({int(n): t for n, t in stats[stat][pattern].items()})
                row["intercept_us" + suffix], row["slope_us_per_token" + suffix] = intercept, slope
    return out


def markdown(report):
    lines = [
        "# Per-call fixed cost of the runtime (intercept of time per text against tokens)",
        "",
        f"- command: `{report['command']}`",
        f"- machine: {report['machine']}",
        f"- versions: {', '.join(f'{k} {v}' for k, v in report['versions'].items())}",
        f"- exports: {', '.join(f'{k} `{v}`' for k, v in report['exports'].items())}",
        f"- setup: batch 1, one thread, lengths {', '.join(map(str, report['lengths']))} tokens (random ids), "
        f"{report['repeats']} calls per length, pattern and version, each call of one version next to the same "
        "call of the other (which goes first alternates); a line fitted by least squares",
        f"- the before version's runtime/runner.py and runtime/litert_runner.py run with this checkout's other "
        f"files; those differ from it by: {report['before_shares_with_after']}",
        "",
        "Fits through the medians, and through the 10th percentiles (p10: the calls the other processes of a "
        "shared machine disturbed least):",
        "",
        "| version | export | pattern | intercept us/text | slope us/token | us at 23 tokens | fixed share at 23 | "
        "p10 intercept | p10 slope |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for version, fits in report["fits"].items():
        for export, patterns in fits.items():
            for pattern, f in patterns.items():
                at = f["intercept_us"] + 23 * f["slope_us_per_token"]
                lines.append(
                    f"| {version} | {export} | {pattern} | {f['intercept_us']:.1f} | "
                    f"{f['slope_us_per_token']:.3f} | {at:.1f} | {f['intercept_us'] / at:.0%} | "
                    f"{f['intercept_us_p10']:.1f} | {f['slope_us_per_token_p10']:.3f} |"
                )
    lines += _decomposition(report)
    lines += ["", "Medians per length (us per text):", ""]
    lengths = report["lengths"]
    lines += ["| version | export | pattern | " + " | ".join(map(str, lengths)) + " |"]
    lines += ["|---|---|---|" + "---:|" * len(lengths)]
    for version, by_export in report["stats"].items():
        for export, stats in by_export.items():
            for pattern, by_length in stats["median"].items():
                cells = " | ".join(f"{by_length[str(n)] if str(n) in by_length else by_length[n]:.1f}" for n in lengths)
                lines.append(f"| {version} | {export} | {pattern} | {cells} |")
    lines += ["", report["note"], ""]
    return "\n".join(lines)


def _part(fits, pattern, minus, suffix):
    """Intercept of `pattern` minus that of `minus` (None: nothing)."""
    return fits[pattern]["intercept_us" + suffix] - (fits[minus]["intercept_us" + suffix] if minus else 0.0)


def _decomposition(report):
    """The custom-op export's intercept in parts, from the fits: the C call
    alone (LiteRT's run and the C++ runner's copies), the Python around it
    (`invoke, same length` minus the C call), other texts of the same length
    (rows not in cache, other read decisions: `..., other texts` minus
    `invoke, same length`), and a length change between calls (`invoke`
    minus `..., other texts`: C++ resize and reallocation, LiteRT, new
    output views; after token padding, only where a text leaves its bucket)."""
    parts = (
        (C_CALL, None),
        ("invoke, same length", C_CALL),
        ("invoke, same length, other texts", "invoke, same length"),
        ("invoke", "invoke, same length, other texts"),
    )
    lines = [
        "",
        "The custom-op export's intercept in parts (us per text; median fit / p10 fit):",
        "",
        "| version | C call alone (LiteRT's run, C++ copies) | + Python around the C call | + other texts of "
        "the same length (cache, decisions) | + a length change between calls (resize, reallocation, new "
        "views) | = invoke |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for version, fits in report["fits"].items():
        f = fits.get("skim_lstm_custom", {})
        if any(p not in f for p, _ in parts):
            continue
        cells = [" / ".join(f"{_part(f, a, b, suffix):.1f}" for suffix in ("", "_p10")) for a, b in parts]
        total = " / ".join(f"{f['invoke']['intercept_us' + suffix]:.1f}" for suffix in ("", "_p10"))
        lines.append(f"| {version} | {' | '.join(cells)} | {total} |")
    return lines


def parse(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skim", default=os.path.join(DEMO, "skim_lstm_custom"), help="Skim-LSTM custom-op export")
    parser.add_argument("--lstm", default=os.path.join(DEMO, "lstm_builtin"), help="LSTM builtin export")
    parser.add_argument("--lengths", type=lambda s: [int(x) for x in s.split(",")], default=list(LENGTHS))
    parser.add_argument("--repeats", type=int, default=200, help="calls per length and pattern (default 200)")
    parser.add_argument("--before", metavar="REV", help="also measure the keras_skim of this commit")
    parser.add_argument("-o", "--output", default=os.path.join(HERE, "results", "runtime_fixed_cost"))
    return parser.parse_args(argv)


def main(argv=None):
    args = parse(argv)
    import platform

    from keras_skim.runtime.interpreter_loader import runtime_versions
    from keras_skim.runtime.runner import SkimRunner

    load_at_start = [round(x, 2) for x in os.getloadavg()]
    runners = {"after": SkimRunner}
    shared_changes = None
    if args.before:
        runners = {"before": before_runner_class(args.before), "after": SkimRunner}
        shared = ["keras_skim/contracts.py", "keras_skim/model_kinds.py", "keras_skim/runtime/interpreter_loader.py"]
        shared += ["keras_skim/runtime/tflite_check.py", "keras_skim/litert_ops"]
        diff = subprocess.run(["git", "-C", ROOT, "diff", "--stat", args.before, "--", *shared], capture_output=True)
        shared_changes = diff.stdout.decode().strip() or "none"
    measured = {export: measure(runners, path, args.lengths, args.repeats) for export, path in _exports(args).items()}
    stats = {version: {export: m[version] for export, m in measured.items()} for version in runners}
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
        "before_shares_with_after": shared_changes,
        "exports": {k: os.path.relpath(v, ROOT) for k, v in _exports(args).items()},
        "lengths": args.lengths,
        "repeats": args.repeats,
        "stats": stats,
        "fits": {version: summarize(s) for version, s in stats.items()},
        "note": (
            "`invoke` is the call `keras-skim bench` times; `run_ids` adds the input checks of `prepare`; "
            "`invoke, same length` repeats one length and one text, so no input is resized between calls; "
            "`..., other texts` takes 4 texts of that length in turn; "
            f"`{C_CALL}` (custom-op export only) is the one ctypes call into the C++ runner (inputs copied in, "
            "LiteRT's run, outputs described), the same code in both versions. The LSTM export "
            "runs on ai-edge-litert's Python Interpreter (builtin ops only: `interpreter_loader`), whose own "
            "per-call work keras-skim does not control. Both versions run the same op library build."
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
