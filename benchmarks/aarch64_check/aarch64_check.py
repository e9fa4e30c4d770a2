"""keras-skim's native runtime on arm64, checked under emulation.

The runner the Python runtime and the Android JNI shim share
(keras_skim/litert_ops/: the KerasSkimLSTM op, the LiteRT C API adapter and
ModelRunner, driven by run_model.cc) is cross-compiled with Debian's
`aarch64-linux-gnu-g++` and run under `qemu-aarch64` with the `libLiteRt.so`
of the aarch64 `ai-edge-litert` wheel (the installed version). Its outputs
must match the x86-64 Python runtime (`keras_skim.runtime.SkimRunner`):
logits within 1e-5, identical read masks and read counts, at thresholds 0,
0.5 and 1.5, for builtin and custom-op exports. Correctness only: emulated
timings mean nothing and none are taken.

LiteRT reads /proc/cpuinfo to pick its kernels; under qemu-user that is the
host's x86 file and the process crashes, so each run sees a fake ARM
cpuinfo, bind-mounted in a private mount namespace (`unshare -m`, as root,
or `unshare -r -m` where unprivileged user namespaces are allowed).

    python benchmarks/aarch64_check/aarch64_check.py [--export DIR ...] [--out DIR]

Without --export it trains tiny models (random data, TensorFlow) and exports
them. Needs aarch64-linux-gnu-g++, qemu-aarch64, unshare and, once, pip and
the network to download the aarch64 wheel into
~/.cache/keras_skim/aarch64/, where the cross-compiled runner is kept too
(keyed by its sources, compiler and flags). Writes results.json and results.md (next to
this script unless --out); exit 1 if any output differs.
"""

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OPS = os.path.join(ROOT, "keras_skim", "litert_ops")
SYSROOT = "/usr/aarch64-linux-gnu"
THRESHOLDS = (0.0, 0.5, 1.5)
ATOL = 1e-5
TOOLS = ("aarch64-linux-gnu-g++", "qemu-aarch64", "unshare")
# An ARMv8.2 core (Cortex-A76-like) with the features LiteRT's kernels test.
FAKE_CPUINFO = """processor\t: 0
BogoMIPS\t: 50.00
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp
CPU implementer\t: 0x41
CPU architecture: 8
CPU variant\t: 0x3
CPU part\t: 0xd0c
CPU revision\t: 1

"""

sys.path.insert(0, ROOT)


def missing_tools():
    """The tools this check needs that are not installed (and the aarch64 sysroot)."""
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if not os.path.isdir(os.path.join(SYSROOT, "lib")):
        missing.append(f"{SYSROOT} (Debian's libc6-arm64-cross)")
    return missing


def first_line(command):
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=30)
        return (out.stdout or out.stderr).splitlines()[0].strip()
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "unknown"


def aarch64_litert(wheel=None):
    """(libLiteRt.so of the aarch64 wheel, wheel name): from `wheel`, or the
    wheel of the installed ai-edge-litert version, downloaded once."""
    from importlib import metadata

    version = metadata.version("ai-edge-litert")
    cache = os.path.join(cache_folder(), f"ai-edge-litert-{version}")
    target = os.path.join(cache, "libLiteRt.so")
    name_file = os.path.join(cache, "wheel.txt")
    if wheel is None and os.path.isfile(target) and os.path.isfile(name_file):
        return target, open(name_file).read().strip()
    with tempfile.TemporaryDirectory() as tmp:
        if wheel is None:
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    f"ai-edge-litert=={version}",
                    "--no-deps",
                    "--only-binary=:all:",
                    "--platform",
                    "manylinux_2_27_aarch64",
                    "--python-version",
                    "3.11",
                    "-d",
                    tmp,
                    "-q",
                ],
                capture_output=True,
                text=True,
            )
            wheels = [f for f in os.listdir(tmp) if f.endswith(".whl")]
            if done.returncode != 0 or not wheels:
                raise SystemExit(
                    f"aarch64_check: cannot download the aarch64 ai-edge-litert {version} wheel: "
                    f"{(done.stderr or done.stdout).strip().splitlines()[-1:]}"
                )
            wheel = os.path.join(tmp, wheels[0])
        os.makedirs(cache, exist_ok=True)
        with zipfile.ZipFile(wheel) as z:
            data = z.read("ai_edge_litert/libLiteRt.so")
        with open(target + ".tmp", "wb") as f:
            f.write(data)
        os.replace(target + ".tmp", target)
        with open(name_file, "w") as f:
            f.write(os.path.basename(wheel) + "\n")
        return target, os.path.basename(wheel)


CROSS_COMPILER = "aarch64-linux-gnu-g++"
RUNNER_FLAGS = ("-O2", "-std=c++17", "-Wall")


def cache_folder():
    """~/.cache/keras_skim/aarch64 (or under $KERAS_SKIM_CACHE): the wheel's libLiteRt.so and the runners."""
    return os.path.join(os.environ.get("KERAS_SKIM_CACHE") or os.path.expanduser("~/.cache/keras_skim"), "aarch64")


def build_runner():
    """run_model cross-compiled for aarch64 from the library's own sources, kept in the cache
    under a key of its sources, the compiler's version and the flags (as export/build_wheels.py
    keeps its libraries): the same inputs give the same program, so only a first run, or one
    after a C++ change, compiles it (most of this check's time on two cores)."""
    from keras_skim.litert_ops.native_build import build_key, compiled_sources

    run_model = os.path.join(HERE, "run_model.cc")
    out = os.path.join(cache_folder(), f"run_model-{build_key(CROSS_COMPILER, RUNNER_FLAGS, OPS, [run_model])}")
    if os.path.isfile(out):
        return out
    os.makedirs(cache_folder(), exist_ok=True)
    sources = [run_model] + compiled_sources(OPS, c_interface=False)
    partial = f"{out}.{os.getpid()}.partial"
    done = subprocess.run(
        [CROSS_COMPILER, *RUNNER_FLAGS, "-I", OPS, *sources, "-o", partial, "-ldl", "-pthread"],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"aarch64_check: cross-compiling failed: {done.stderr.strip()[-2000:]}")
    os.replace(partial, out)
    return out


def run_aarch64(runner, litert, model, requests, cpuinfo):
    """Answers of run_model under qemu for `requests` [(threshold, ids)]."""
    unshare = ["unshare", "-m"] if os.geteuid() == 0 else ["unshare", "-r", "-m"]
    command = [
        *unshare,
        "sh",
        "-c",
        'mount --bind "$0" /proc/cpuinfo && exec "$@"',
        cpuinfo,
        "qemu-aarch64",
        "-L",
        SYSROOT,
        runner,
        litert,
        model,
        "1",
    ]
    text = "".join(f"{t} {' '.join(str(int(i)) for i in ids)}\n" for t, ids in requests)
    done = subprocess.run(
        command,
        input=text,
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ, KERAS_SKIM_LITERT_LOG="error"),
    )
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or len(answers) != len(requests):
        raise SystemExit(
            f"aarch64_check: {model} under qemu failed (exit {done.returncode}): {done.stderr.strip()[-1500:]}"
        )
    return answers


def id_sequences(vocabulary, seed=0):
    import numpy as np

    rng = np.random.default_rng(seed)
    sequences = [rng.integers(1, vocabulary, n).astype(np.int32) for n in (1, 7, 23, 64)]
    with_padding = rng.integers(1, vocabulary, 12).astype(np.int32)
    with_padding[[0, 5, 6]] = 0  # id 0 = padding
    return sequences + [with_padding]


def tiny_exports(work):
    """Tiny trained models exported builtin and custom: {name: export folder}."""
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import keras
    import numpy as np

    from keras_skim import SkimLSTMCell
    from keras_skim.export.exporter import export_model

    exports = {}
    for name, small, backends in (
        ("skim_lstm", 4, ("builtin", "custom")),
        ("skim_lstm_d0", 0, ("custom",)),
        ("lstm", None, ("builtin",)),
    ):
        keras.utils.set_random_seed(7)
        inp = keras.Input((None,), dtype="int32")
        x = keras.layers.Embedding(50, 8, mask_zero=True)(inp)
        x = keras.layers.LSTM(16)(x) if small is None else keras.layers.RNN(SkimLSTMCell(16, small))(x)
        model = keras.Model(inp, keras.layers.Dense(1, activation="sigmoid")(x))
        model.compile("adam", "binary_crossentropy")
        rng = np.random.default_rng(0)
        model.fit(rng.integers(1, 50, (16, 12)), rng.integers(0, 2, (16, 1)), batch_size=8, epochs=1, verbose=0)
        path = os.path.join(work, f"{name}.keras")
        model.save(path)
        for backend in backends:
            out = os.path.join(work, f"{name}_{backend}")
            export_model(path, out, backend=backend, parity_samples=2)
            exports[f"{name} ({backend})"] = out
    return exports


def export_names(folders):
    """{label: folder}, labels "parent/folder" (unique)."""
    names = {}
    for folder in folders:
        folder = os.path.normpath(os.path.abspath(folder))
        label = os.path.join(os.path.basename(os.path.dirname(folder)), os.path.basename(folder))
        while label in names:
            label += "'"
        names[label] = folder
    return names


def check(exports, work, wheel=None):
    import numpy as np

    from keras_skim.runtime import SkimRunner

    litert, wheel_name = aarch64_litert(wheel)
    runner = build_runner()
    cpuinfo = os.path.join(work, "fake_cpuinfo")
    with open(cpuinfo, "w") as f:
        f.write(FAKE_CPUINFO)
    rows, ok = [], True
    for name, folder in exports.items():
        reference = SkimRunner(folder)
        vocabulary = reference.metadata.vocabulary_size or 50
        requests = [(t, ids) for t in THRESHOLDS for ids in id_sequences(vocabulary)]
        answers = run_aarch64(runner, litert, os.path.join(folder, "model.tflite"), requests, cpuinfo)
        worst, masks, counts, errors, reads, tokens = 0.0, 0, 0, [], 0, 0
        for (threshold, ids), got in zip(requests, answers):
            if "error" in got:
                errors.append(got["error"])
                continue
            want = reference.run_ids(ids, threshold)
            worst = max(worst, float(np.max(np.abs(np.asarray(got["logits"]) - want["logits"].reshape(-1)))))
            masks += np.array_equal(
                np.rint(np.asarray(got["read_mask"])).astype(int), np.rint(want["read_mask"].reshape(-1)).astype(int)
            )
            counts += int(got["read_count"][0]) == int(want["read_count"].reshape(-1)[0])
            if threshold == 0.5:  # shows the decisions are not all alike
                reads += int(got["read_count"][0])
                tokens += ids.size
        row_ok = not errors and worst <= ATOL and masks == counts == len(requests)
        ok &= row_ok
        rows.append(
            {
                "model": name,
                "backend": reference.backend,
                "cases": len(requests),
                "max_logit_difference": worst,
                "identical_masks": masks,
                "identical_counts": counts,
                "reads_at_0.5": f"{reads}/{tokens}",
                "errors": errors[:3],
                "ok": row_ok,
            }
        )
    return {
        "check": "aarch64 native runtime under qemu-user vs the x86-64 Python runtime",
        "ok": ok,
        "thresholds": list(THRESHOLDS),
        "tolerance": ATOL,
        "rows": rows,
        "aarch64_wheel": wheel_name,
        "libLiteRt_sha256": hashlib.sha256(open(litert, "rb").read()).hexdigest(),
        "host": {"platform": platform.platform(), "python": platform.python_version()},
        "tools": {
            "aarch64-linux-gnu-g++": first_line(["aarch64-linux-gnu-g++", "--version"]),
            "qemu-aarch64": first_line(["qemu-aarch64", "--version"]),
        },
        "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
    }


def markdown(report):
    lines = [
        "# keras-skim native runtime on aarch64 (qemu-user), against the x86-64 Python runtime",
        "",
        "Correctness only: emulated timings mean nothing, none are reported.",
        "",
        f"- result: {'all outputs match' if report['ok'] else 'MISMATCH'} (logits within {report['tolerance']:g}, "
        f"identical read masks and counts, thresholds {', '.join(str(t) for t in report['thresholds'])})",
        f"- LiteRT: `{report['aarch64_wheel']}` (libLiteRt.so sha256 {report['libLiteRt_sha256'][:16]}...)",
        f"- tools: {report['tools']['aarch64-linux-gnu-g++']}; {report['tools']['qemu-aarch64']}",
        f"- host: {report['host']['platform']}, Python {report['host']['python']}",
        f"- command: `{report['command']}` ({report['seconds']} s)",
        "",
        "| model | backend | cases | max logit difference | identical masks | identical counts | reads at 0.5 | ok |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in report["rows"]:
        lines.append(
            f"| {r['model']} | {r['backend']} | {r['cases']} | {r['max_logit_difference']:.1e} | "
            f"{r['identical_masks']}/{r['cases']} | {r['identical_counts']}/{r['cases']} | {r['reads_at_0.5']} | "
            f"{'yes' if r['ok'] else 'NO: ' + '; '.join(r['errors'])} |"
        )
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--export", action="append", help="an export folder to check (repeatable)")
    parser.add_argument("--wheel", help="a local aarch64 ai-edge-litert wheel instead of downloading one")
    parser.add_argument("--out", default=HERE, help="folder for results.json and results.md")
    args = parser.parse_args()
    missing = missing_tools()
    if missing:
        raise SystemExit(
            f"aarch64_check: missing {', '.join(missing)} (apt-get install g++-aarch64-linux-gnu qemu-user)"
        )
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="aarch64-check-") as work:
        exports = export_names(args.export) if args.export else tiny_exports(work)
        report = check(exports, work, args.wheel)
    report["seconds"] = round(time.time() - started)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    text = markdown(report)
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(text)
    print(text)
    sys.exit(0 if report["ok"] else 1)


if __name__ == "__main__":
    main()
