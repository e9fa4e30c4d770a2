"""Builds `libkeras_skim_ops.so` from the C++ sources of this folder's three
layers (`kernels/`: the cores and ops, free of LiteRT types, behind
`kernels/op_kernel.h`; `litert/`: the LiteRT C API binding and op adapter;
`runner/`: the model runner and its C interface), at
package build time: `setup.py` runs it for `pip install`, `pip wheel .` and
`pip install -e .` (in place), and the test suite's fixtures run it in a
checkout whose library is missing or older than its sources. The runtime
(`keras_skim.litert_ops`) never imports this module and never calls a
compiler: it loads the library this module wrote and checks it against the
manifest written next to it (`libkeras_skim_ops.json`).

Standard library only, so that `setup.py` can load it by path before
keras-skim or its dependencies are installed.
"""

import concurrent.futures
import hashlib
import json
import os
import platform
import shutil
import subprocess
import tempfile

LIBRARY_NAME = "libkeras_skim_ops.so"
MANIFEST_NAME = "libkeras_skim_ops.json"
# The systems the build supports: the sources use dlopen and GCC/Clang
# attributes (function multiversioning on x86-64); macOS and Windows are untested.
BUILD_SYSTEMS = ("Linux",)
HERE = os.path.dirname(os.path.abspath(__file__))
# The source folders, lowest layer first; a layer includes the ones before it
# by relative path ("../kernels/op_kernel.h"), so no -I is needed.
LAYERS = ("kernels", "litert", "runner")
# The C interface for ctypes: the Python library's only, the JNI shim and the
# arm64 check drive the runner directly.
C_INTERFACE = "runner/keras_skim_c.cc"
C_HEADER = "runner/keras_skim_c.h"


class BuildError(RuntimeError):
    """The library cannot be built here; the message is one line."""


def source_files(folder=HERE):
    """Every .cc, .h and .inc of the layers of `folder`, as sorted paths
    relative to it ("kernels/op_kernel.h"): what the library is built from."""
    names = []
    for layer in LAYERS:
        directory = os.path.join(folder, layer)
        if os.path.isdir(directory):
            names += [f"{layer}/{n}" for n in os.listdir(directory) if n.endswith((".cc", ".h", ".inc"))]
    return sorted(names)


def compiled_sources(folder=HERE, c_interface=True):
    """Paths of the .cc files of `folder` that a build compiles; without the
    ctypes interface (`C_INTERFACE`) for builds that drive the runner
    directly (the JNI shim, the arm64 check)."""
    return [
        os.path.join(folder, name)
        for name in source_files(folder)
        if name.endswith(".cc") and (c_interface or name != C_INTERFACE)
    ]


def sources_sha256(folder=HERE):
    """sha256 over the names and bytes of `source_files(folder)`."""
    digest = hashlib.sha256()
    for name in source_files(folder):
        with open(os.path.join(folder, name), "rb") as f:
            digest.update(name.encode() + b"\0" + f.read() + b"\0")
    return digest.hexdigest()


def build_key(cxx, flags, folder=HERE, extra_files=()):
    """16 hex digits naming a build of `folder`'s sources (and `extra_files`) by `cxx` with `flags`:
    the same inputs give the same binary, so a cache keyed by it compiles only after a change
    (export/build_wheels.py's libraries, benchmarks/aarch64_check's runner)."""
    key = [sources_sha256(folder), _compiler_version(cxx), list(flags)] + [file_sha256(p) for p in extra_files]
    return hashlib.sha256(json.dumps(key).encode()).hexdigest()[:16]


def compile_flags(machine=None):
    """The g++ flags (as the first-use build used them) for `machine`
    (default this one)."""
    flags = ["-O3", "-std=c++17", "-fPIC", "-shared", "-fvisibility=hidden", "-fno-math-errno", "-Wall", "-pthread"]
    machine = machine or platform.machine()
    if machine in ("x86_64", "AMD64"):
        # Baseline x86-64-v2; the kernels carry AVX2/FMA clones picked at load time (simd_isa.cc).
        flags.append("-march=x86-64-v2")
    return flags


def compiler():
    """Path of `$CXX` (default g++), or None."""
    return shutil.which(os.environ.get("CXX", "g++"))


def c_api_version(folder=HERE):
    """KERAS_SKIM_C_API_VERSION of runner/keras_skim_c.h."""
    with open(os.path.join(folder, C_HEADER), encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if parts[:2] == ["#define", "KERAS_SKIM_C_API_VERSION"]:
                return int(parts[2])
    raise BuildError(f"{folder}/{C_HEADER} defines no KERAS_SKIM_C_API_VERSION")


def file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def build_library(out_dir, folder=HERE, cxx=None, machine=None):
    """Compiles the sources of `folder` into `out_dir/libkeras_skim_ops.so`
    and writes `out_dir/libkeras_skim_ops.json` (size, sha256, source hash,
    C API version, compiler, flags). Both files are replaced atomically.

    Args:
        out_dir: the folder the library and its manifest are written to.
        folder: the folder holding the C++ sources (`LAYERS`).
        cxx: the compiler; default `compiler()`.
        machine: the target machine ("aarch64" with a cross compiler as
            `cxx`); default this one's. It picks the flags and is recorded.

    Returns:
        The manifest (a dict).

    Raises:
        BuildError: one line: an unsupported system, no compiler, or a failed build.
    """
    if platform.system() not in BUILD_SYSTEMS:
        raise BuildError(f"the custom-op library builds on {', '.join(BUILD_SYSTEMS)} only, not {platform.system()}")
    cxx = cxx or compiler()
    if cxx is None:
        raise BuildError(f"no C++17 compiler: {os.environ.get('CXX', 'g++')} not found (set CXX)")
    os.makedirs(out_dir, exist_ok=True)
    sources = compiled_sources(folder)
    flags = compile_flags(machine)
    fd, tmp = tempfile.mkstemp(prefix=".build-", suffix=".so", dir=out_dir)
    os.close(fd)
    try:
        with tempfile.TemporaryDirectory(prefix=".objects-", dir=out_dir) as objects:
            _link(cxx, flags, _compile_objects(cxx, flags, sources, objects), tmp)
        os.chmod(tmp, 0o755)
        manifest = {
            "library": LIBRARY_NAME,
            "bytes": os.path.getsize(tmp),
            "sha256": file_sha256(tmp),
            "sources_sha256": sources_sha256(folder),
            "c_api_version": c_api_version(folder),
            "system": platform.system(),
            "machine": machine or platform.machine(),
            "compiler": _compiler_version(cxx),
            "flags": flags,
        }
        os.replace(tmp, os.path.join(out_dir, LIBRARY_NAME))
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    _write_json(os.path.join(out_dir, MANIFEST_NAME), manifest)
    return manifest


def _compile_objects(cxx, flags, sources, objects):
    """Object files of `sources`, compiled side by side on every core (three
    kernel cores take most of a build, so a second core nearly halves it);
    the paths in the order of `sources`."""
    compile_flags_only = [flag for flag in flags if flag != "-shared"]
    paths = [os.path.join(objects, f"{index}.o") for index in range(len(sources))]

    def compile_one(source, path):
        return subprocess.run([cxx, *compile_flags_only, "-c", source, "-o", path], capture_output=True, text=True)

    # The largest sources first, so that the last to start is a short one.
    order = sorted(range(len(sources)), key=lambda i: -os.path.getsize(sources[i]))
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        done = {i: pool.submit(compile_one, sources[i], paths[i]) for i in order}
        for i in range(len(sources)):
            _check(cxx, done[i].result())
    return paths


def _link(cxx, flags, objects, output):
    _check(cxx, subprocess.run([cxx, *flags, *objects, "-o", output, "-ldl"], capture_output=True, text=True))


def _check(cxx, done):
    if done.returncode != 0:
        lines = [line for line in (done.stderr or done.stdout).splitlines() if "error" in line]
        detail = (lines or (done.stderr or "").splitlines() or ["no output"])[0].strip()
        raise BuildError(f"the custom-op library build failed ({cxx}): {detail}")


def _compiler_version(cxx):
    done = subprocess.run([cxx, "--version"], capture_output=True, text=True)
    return (done.stdout.splitlines() or [os.path.basename(cxx)])[0].strip()


def _write_json(path, value):
    fd, tmp = tempfile.mkstemp(prefix=".manifest-", suffix=".json", dir=os.path.dirname(path))
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=1, sort_keys=True)
        f.write("\n")
    os.chmod(tmp, 0o644)  # mkstemp's 0600 would hide it from other users of a system install
    os.replace(tmp, path)


def is_current(folder=HERE):
    """Whether `folder` holds a library built from its present sources."""
    try:
        with open(os.path.join(folder, MANIFEST_NAME), encoding="utf-8") as f:
            manifest = json.load(f)
        path = os.path.join(folder, LIBRARY_NAME)
        return (
            manifest.get("sources_sha256") == sources_sha256(folder)
            and os.path.getsize(path) == manifest.get("bytes")
            and file_sha256(path) == manifest.get("sha256")
        )
    except (OSError, ValueError):
        return False


def main():
    """`python keras_skim/litert_ops/native_build.py`: build in place."""
    manifest = build_library(HERE)
    print(f"built {os.path.join(HERE, LIBRARY_NAME)} ({manifest['bytes']} bytes, {manifest['compiler']})")


if __name__ == "__main__":
    main()
