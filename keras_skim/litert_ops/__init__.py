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
build for Python (g++, when the package is built), the desktop JVM shim and Android (CMake
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

The library is compiled when the package is built (`setup.py`, through
`native_build.py`: `pip install`, `pip wheel .` gives a platform wheel,
`pip install -e .` builds it in place) into this folder as
`libkeras_skim_ops.so`, with `libkeras_skim_ops.json`, its manifest (size,
sha256, source hash, C API version). The runtime never calls a compiler: it
checks the file against the manifest before dlopen (so a truncated or
foreign file is one line, not a crash), then the C symbols and the C API
version. Where no library was built (macOS, Windows, a build without a C++
compiler), loading it says so in one line. This module imports neither
TensorFlow nor Keras, and never the runtime above it (the runtime's
`interpreter_loader.make_interpreter` loads models and registers these ops).

    from keras_skim.runtime.interpreter_loader import make_interpreter
    model = make_interpreter("model.tflite")      # custom ops registered, compiled
    outputs = model.get_signature_runner()(token_ids=ids, threshold=t)

Built on Linux (x86-64, arm64) with glibc and a C++17 compiler.
"""

import ctypes
import json
import os
import platform
import threading

from keras_skim.contracts import CUSTOM_OPS
from keras_skim.litert_ops.native_build import (
    BUILD_SYSTEMS,
    LIBRARY_NAME,
    MANIFEST_NAME,
    file_sha256,
    source_files,
    sources_sha256,
)

OP_NAME = CUSTOM_OPS["skim_lstm"]
OP_NAMES = tuple(CUSTOM_OPS.values())  # every op the library registers (library_ops.cc)
# The C interface this module speaks (KERAS_SKIM_C_API_VERSION of keras_skim_c.h).
C_API_VERSION = 2
# A folder holding another build of the library and its manifest (default: this package's folder).
OPS_DIR_ENV = "KERAS_SKIM_OPS_DIR"

_HERE = os.path.dirname(os.path.abspath(__file__))
_LOCK = threading.Lock()
_LIB = None
_VERIFIED = None  # the library path once its manifest check passed


def _signatures():
    c_int, c_char_p, c_size_t, c_void_p = ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p
    int_p, i32_p = ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int32)
    return {
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


def _not_built_message(folder):
    system = f"{platform.system()} {platform.machine()}"
    if platform.system() not in BUILD_SYSTEMS:
        return (
            f"keras-skim's custom-op library is not built for {system} (built on Linux x86-64 and aarch64 only); "
            "export with --backend builtin, which any LiteRT interpreter runs"
        )
    return (
        f"keras-skim's custom-op library is not part of this install ({folder} has no {LIBRARY_NAME}): it is built "
        "with the package; reinstall keras-skim with a C++17 compiler present (pip install -e . in a checkout), "
        "or export with --backend builtin"
    )


def read_manifest(folder=_HERE):
    """The build manifest of the library in `folder`.

    Raises:
        RuntimeError: one line: no library built here, or an unreadable manifest.
    """
    path = os.path.join(folder, MANIFEST_NAME)
    if not os.path.isfile(path):
        raise RuntimeError(_not_built_message(folder))
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError) as err:
        raise RuntimeError(f"{path}: not a keras-skim build manifest ({err}); reinstall keras-skim") from None
    keys = ("bytes", "sha256", "sources_sha256", "c_api_version")
    missing = [k for k in keys if k not in manifest] if isinstance(manifest, dict) else list(keys)
    if missing:
        raise RuntimeError(f"{path}: not a keras-skim build manifest (no {', '.join(missing)}); reinstall keras-skim")
    return manifest


def verify_library(folder=_HERE):
    """Path of the library in `folder` after checking it against its manifest,
    without loading it: size and sha256 (a truncated or replaced file), the C
    API version it was built for, and, where the C++ sources lie next to it
    (a checkout), that it was built from them.

    Raises:
        RuntimeError: one line saying what is wrong and what to do.
    """
    manifest = read_manifest(folder)
    path = os.path.join(folder, LIBRARY_NAME)
    rebuild = "rebuild it: pip install -e . (or python keras_skim/litert_ops/native_build.py) in a checkout"
    if not os.path.isfile(path):
        raise RuntimeError(f"{path}: missing, but {MANIFEST_NAME} lists it; reinstall keras-skim")
    size = os.path.getsize(path)
    if size != manifest["bytes"]:
        raise RuntimeError(f"{path}: {size} bytes, its build manifest says {manifest['bytes']}; reinstall keras-skim")
    if file_sha256(path) != manifest["sha256"]:
        raise RuntimeError(f"{path}: its sha256 differs from its build manifest's; reinstall keras-skim")
    if manifest["c_api_version"] != C_API_VERSION:
        raise RuntimeError(
            f"{path}: built for C API version {manifest['c_api_version']}, this keras-skim speaks {C_API_VERSION}; "
            f"{rebuild}"
        )
    if (
        any(name.endswith(".cc") for name in source_files(folder))
        and sources_sha256(folder) != manifest["sources_sha256"]
    ):
        raise RuntimeError(f"{path} was built from other C++ sources than those next to it; {rebuild}")
    return path


def library_path():
    """Path of the packaged `libkeras_skim_ops.so` (or the one in
    `$KERAS_SKIM_OPS_DIR`), verified (`verify_library`).

    Raises:
        RuntimeError: one line: not built for this platform or install, damaged, or stale.
    """
    global _VERIFIED
    with _LOCK:
        if _VERIFIED is None:
            _VERIFIED = verify_library(os.environ.get(OPS_DIR_ENV) or _HERE)
        return _VERIFIED


def load_library(path=None):
    """The `ctypes.CDLL` of our library, loaded once per process after its
    checks (`library_path`), with the argument types of its C interface
    (keras_skim_c.h); every function and the C API version are checked.

    Raises:
        RuntimeError: one line (see `library_path`; or a library without the
            expected functions or version).
    """
    global _LIB
    with _LOCK:
        if _LIB is not None:
            return _LIB
    path = path or library_path()
    try:
        lib = ctypes.CDLL(path)
    except OSError as err:
        raise RuntimeError(f"{path}: cannot be loaded ({str(err).splitlines()[0]})") from None
    signatures = _signatures()
    missing = [name for name in signatures if not hasattr(lib, name)]
    if missing:
        raise RuntimeError(f"{path}: not keras-skim's op library (missing {', '.join(missing)})")
    for name, (argtypes, restype) in signatures.items():
        fn = getattr(lib, name)
        fn.argtypes = argtypes
        fn.restype = restype
    version = lib.KerasSkim_ApiVersion()
    if version != C_API_VERSION:
        raise RuntimeError(f"{path}: C API version {version}, this keras-skim speaks {C_API_VERSION}")
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


__all__ = [
    "C_API_VERSION",
    "LIBRARY_NAME",
    "OP_NAME",
    "OP_NAMES",
    "library_path",
    "load_library",
    "op_names",
    "verify_library",
]
