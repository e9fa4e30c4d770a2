"""keras-skim's custom LiteRT ops (`KerasSkimLSTM`: a whole Skim-LSTM
sequence in one op; `KerasSjLSTM`: a whole Structural-Jump-LSTM text in one
op) and the runtime that runs them through LiteRT's C API.

How the op reaches LiteRT. The prebuilt LiteRT libraries export C symbols
only: `libLiteRt.so` (in the `ai-edge-litert` wheel and in the Android AAR
`com.google.ai.edge.litert:litert` 2.x) exports the LiteRT 2.x C API, and
none of them exports the C++ `tflite::MutableOpResolver::AddCustom`. So a JNI
shim (or any code) built against a prebuilt AAR cannot call `AddCustom`: it
would not link. What works everywhere is the public C API:

1. open the model: `LiteRtCreateEnvironment`, `LiteRtCreateModelFromBuffer`;
2. `LiteRtCreateOptions`, CPU with one XNNPACK thread (the opaque option
   "xnnpack", payload `num_threads = 1`), and per op
   `LiteRtAddCustomOpKernelOption(options, "KerasSkimLSTM", 1, &kernel, data)`
   (every op of `library_ops.cc`: KerasSkimLSTM, KerasSjLSTM)
   where `kernel` is a `LiteRtCustomOpKernel` (Init / GetOutputLayouts / Run
   / Destroy over `LiteRtTensorBuffer`s);
3. `LiteRtCreateCompiledModel`, then per input shape
   `LiteRtCompiledModelResizeInputTensor` and `LiteRtRunCompiledModel` with
   host-memory tensor buffers.

Our C++ does exactly that and resolves those functions with dlopen/dlsym of
`libLiteRt.so` at run time, so it links nothing but libdl: the same sources
build for Python (g++, on first use), the desktop JVM shim and Android (CMake
in android_demo/app/src/main/cpp, which finds the libLiteRt.so the app's
LiteRT AAR ships). Python (for models with custom ops; builtin-only models
run on ai-edge-litert's Python `Interpreter`, a few percent faster here), the
JVM and the phone (every model) thus run the same code:

- `op_kernel.h`: the runtime-free seam every op is written against
  (`TensorView`, `OpKernel`, `LibraryOps()`, listed in `library_ops.cc`);
  `skim_lstm_op.cc`, `skim_lstm_core.cc`: the Skim-LSTM op; `sj_lstm_op.cc`,
  `sj_lstm_core.cc`: the Structural-Jump-LSTM op;
- `litert_c_abi.h`: our own declarations of the LiteRT C ABI we use, from the
  public headers; `litert_library.cc`: loads `libLiteRt.so` once per process
  and checks that every function is there (LiteRT >= 2.1.6);
- `litert_op_adapter.cc`: `LiteRtCustomOpKernel` -> `OpKernel`;
- `model_runner.cc`: open, compile (ops registered), resize, run, read;
- `keras_skim_c.cc`: a C interface over the runner for ctypes
  (`keras_skim.runtime.litert_runner`).

The library is compiled with g++ on first use into the user cache
`$KERAS_SKIM_CACHE/litert_ops/<source hash>/libkeras_skim_ops.so` (default
`~/.cache/keras_skim`). This module imports neither TensorFlow nor Keras.

    from keras_skim.litert_ops import make_interpreter
    model = make_interpreter("model.tflite")      # custom ops registered, compiled
    outputs = model.get_signature_runner()(token_ids=ids, threshold=t)

Linux (x86-64, arm64) with glibc and a C++17 compiler.
"""

import ctypes
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading

from keras_skim.contracts import CUSTOM_OPS

OP_NAME = CUSTOM_OPS["skim_lstm"]
OP_NAMES = tuple(CUSTOM_OPS.values())  # every op the library registers (library_ops.cc)
LIBRARY_NAME = "libkeras_skim_ops.so"

_HERE = os.path.dirname(os.path.abspath(__file__))
# Every .cc of this folder is part of the library (the ops, the LiteRT
# adapter, the runner and its C interface); CMakeLists.txt of the app globs
# the same folder.
SOURCES = tuple(sorted(os.path.basename(p) for p in glob.glob(os.path.join(_HERE, "*.cc"))))
HEADERS = tuple(
    sorted(os.path.basename(p) for pattern in ("*.h", "*.inc") for p in glob.glob(os.path.join(_HERE, pattern)))
)

_LOCK = threading.Lock()
_LIB = None


def source_hash():
    """Short hash of the C++ sources and the build flags (the cache key)."""
    digest = hashlib.sha256()
    for name in SOURCES + HEADERS:
        with open(os.path.join(_HERE, name), "rb") as f:
            digest.update(name.encode() + b"\0" + f.read() + b"\0")
    digest.update(" ".join(_flags()).encode())
    return digest.hexdigest()[:16]


def cache_dir():
    """`$KERAS_SKIM_CACHE/litert_ops/<source hash>` (default `~/.cache/keras_skim`)."""
    root = os.environ.get("KERAS_SKIM_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "keras_skim")
    return os.path.join(root, "litert_ops", source_hash())


def _flags():
    flags = ["-O3", "-std=c++17", "-fPIC", "-shared", "-fvisibility=hidden", "-fno-math-errno", "-Wall", "-pthread"]
    machine = os.uname().machine if hasattr(os, "uname") else ""
    if machine in ("x86_64", "AMD64"):
        # Baseline x86-64-v2; the kernel may carry faster clones picked at load time.
        flags.append("-march=x86-64-v2")
    return flags


def _compiler():
    cxx = os.environ.get("CXX", "g++")
    return shutil.which(cxx)


def build_command(out, cxx=None):
    """The g++ command line that builds the library into `out`."""
    cxx = cxx or _compiler() or os.environ.get("CXX", "g++")
    return [cxx, *_flags(), *[os.path.join(_HERE, s) for s in SOURCES], "-o", out, "-ldl"]


def library_path(build=True):
    """Path of `libkeras_skim_ops.so`, compiled on first use when `build`.

    Raises:
        RuntimeError: the library is not built and `build` is False, no C++
            compiler is found, or the build fails.
    """
    folder = cache_dir()
    path = os.path.join(folder, LIBRARY_NAME)
    if os.path.isfile(path):
        return path
    if not build:
        raise RuntimeError(f"keras_skim custom-op library not built yet ({path}); call library_path(build=True)")
    cxx = _compiler()
    if cxx is None:
        raise RuntimeError(
            f"keras_skim custom-op library needs a C++ compiler: {os.environ.get('CXX', 'g++')} not found (set CXX)"
        )
    with _LOCK:
        if os.path.isfile(path):
            return path
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".build-", suffix=".so", dir=folder)
        os.close(fd)
        if sys.stderr is not None and sys.stderr.isatty():  # a silent 20 s looks like a hang
            print("keras-skim: building the custom op library (once, ~20 s)...", file=sys.stderr, flush=True)
        try:
            result = subprocess.run(build_command(tmp, cxx), capture_output=True, text=True)
            if result.returncode != 0:
                lines = [line for line in (result.stderr or result.stdout).splitlines() if "error" in line]
                detail = (lines or (result.stderr or "").splitlines() or ["no output"])[0].strip()
                raise RuntimeError(f"keras_skim custom-op library build failed ({cxx}): {detail}")
            os.chmod(tmp, 0o755)
            os.replace(tmp, path)  # atomic: concurrent builders end with one complete file
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return path


def load_library(path=None):
    """The `ctypes.CDLL` of our library (built if needed), loaded once per
    process, with the argument types of its C interface (keras_skim_c.h)."""
    global _LIB
    with _LOCK:
        if _LIB is not None:
            return _LIB
    lib = ctypes.CDLL(path or library_path())
    c_int, c_char_p, c_size_t, c_void_p = ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p
    int_p, i32_p = ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int32)
    signatures = {
        "KerasSkim_ApiVersion": ([], c_int),
        "KerasSkim_LoadLiteRt": ([c_char_p, c_char_p, c_size_t, c_char_p, c_size_t], c_int),
        "KerasSkim_NumOps": ([], c_int),
        "KerasSkim_OpName": ([c_int], c_char_p),
        "KerasSkim_ModelCreate": ([c_void_p, c_size_t, c_int, c_char_p, c_size_t], c_void_p),
        "KerasSkim_ModelDestroy": ([c_void_p], None),
        "KerasSkim_NumSignatures": ([c_void_p], c_int),
        "KerasSkim_SignatureKey": ([c_void_p, c_int], c_char_p),
        "KerasSkim_NumTensors": ([c_void_p, c_int, c_int], c_int),
        "KerasSkim_TensorInfo": ([c_void_p, c_int, c_int, c_int, int_p, int_p, i32_p], c_char_p),
        "KerasSkim_Run": ([c_void_p, c_int, c_void_p, c_int, c_int, c_void_p, c_int, c_char_p, c_size_t], c_int),
    }
    for name, (argtypes, restype) in signatures.items():
        fn = getattr(lib, name)
        fn.argtypes = argtypes
        fn.restype = restype
    with _LOCK:
        if _LIB is None:
            _LIB = lib
        return _LIB


class Tensor(ctypes.Structure):
    """`KerasSkimTensor` of keras_skim_c.h: one tensor passed in or out."""

    _fields_ = [
        ("type", ctypes.c_int32),
        ("rank", ctypes.c_int32),
        ("dims", ctypes.c_int32 * 8),
        ("data", ctypes.c_void_p),
        ("bytes", ctypes.c_size_t),
    ]


def op_names():
    """Names of the custom ops the library registers with every model."""
    lib = load_library()
    return [lib.KerasSkim_OpName(i).decode() for i in range(lib.KerasSkim_NumOps())]


def model_custom_ops(model_path_or_bytes):
    """Names of the custom ops in a .tflite file (or its bytes)."""
    from ai_edge_litert import schema_py_generated as schema

    data = model_path_or_bytes
    if not isinstance(data, (bytes, bytearray)):
        with open(data, "rb") as f:
            data = f.read()
    model = schema.Model.GetRootAsModel(data, 0)
    names = set()
    for i in range(model.OperatorCodesLength()):
        code = model.OperatorCodes(i)
        if max(code.BuiltinCode(), code.DeprecatedBuiltinCode()) == schema.BuiltinOperator.CUSTOM:
            names.add((code.CustomCode() or b"").decode())
    return sorted(names)


def make_interpreter(model_path=None, num_threads=1, model_content=None):
    """`keras_skim.runtime.interpreter_loader.make_interpreter`: a model with
    custom ops compiled through the LiteRT C API with our ops registered (a
    builtin-only model on ai-edge-litert's Python `Interpreter`)."""
    from keras_skim.runtime.interpreter_loader import make_interpreter as make

    return make(model_path=model_path, model_content=model_content, num_threads=num_threads)


__all__ = [
    "OP_NAME",
    "OP_NAMES",
    "library_path",
    "load_library",
    "make_interpreter",
    "model_custom_ops",
    "op_names",
]
