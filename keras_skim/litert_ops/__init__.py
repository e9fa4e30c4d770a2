"""The `KerasSkimLSTM` custom LiteRT op: a whole Skim-LSTM sequence in one op.

Our own C++ (`skim_lstm_core.cc`, `skim_lstm_op.cc`, `tflite_abi.h`) is
compiled with g++ on first use into the user cache
`$KERAS_SKIM_CACHE/litert_ops/<source hash>/libkeras_skim_ops.so` (default
`~/.cache/keras_skim`) and registered with ai-edge-litert's
`InterpreterWithCustomOps(custom_op_registerers=[...])`.

This module is the runtime path: it imports neither TensorFlow nor Keras.

    from keras_skim.litert_ops import make_interpreter
    interpreter = make_interpreter("model.tflite")   # registers the op if needed
    runner = interpreter.get_signature_runner()

Linux x86-64 / arm64 with glibc only (the registerer looks up the runtime's
hidden `MutableOpResolver::AddCustom` in its ELF symbol table; see
`skim_lstm_op.cc`).
"""
import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
import threading

OP_NAME = "KerasSkimLSTM"
REGISTERER_SYMBOL = "KerasSkim_Register"
LIBRARY_NAME = "libkeras_skim_ops.so"
SOURCES = ("skim_lstm_core.cc", "skim_lstm_op.cc", "simd_isa.cc", "library_ops.cc", "tflite_registration.cc")
HEADERS = ("op_kernel.h", "skim_lstm_core.h", "skim_lstm_op.h", "tflite_abi.h", "gate_panels.h", "simd_isa.h",
           "simd_targets.h", "skim_rnn_packed.h", "simd_math.inc", "gate_panels.inc", "simd_regions.inc",
           "skim_rnn_loop.inc", "skim_lstm_kernel.inc")

_HERE = os.path.dirname(os.path.abspath(__file__))
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
    root = os.environ.get("KERAS_SKIM_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "keras_skim"
    )
    return os.path.join(root, "litert_ops", source_hash())


def _flags():
    flags = ["-O3", "-std=c++17", "-fPIC", "-shared", "-fvisibility=hidden",
             "-fno-math-errno", "-Wall"]
    machine = os.uname().machine if hasattr(os, "uname") else ""
    if machine in ("x86_64", "AMD64"):
        # Baseline x86-64-v2; the kernel carries an AVX2+FMA clone picked at load time.
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
            f"keras_skim custom op needs a C++ compiler: {os.environ.get('CXX', 'g++')} not found (set CXX)"
        )
    with _LOCK:
        if os.path.isfile(path):
            return path
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".build-", suffix=".so", dir=folder)
        os.close(fd)
        try:
            result = subprocess.run(build_command(tmp, cxx), capture_output=True, text=True)
            if result.returncode != 0:
                lines = [l for l in (result.stderr or result.stdout).splitlines() if "error" in l]
                detail = (lines or (result.stderr or "").splitlines() or ["no output"])[0].strip()
                raise RuntimeError(f"keras_skim custom-op build failed ({cxx}): {detail}")
            os.chmod(tmp, 0o755)
            os.replace(tmp, path)  # atomic: concurrent builders end with one complete file
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return path


def load_library(path=None):
    """dlopens the op library with RTLD_GLOBAL (so the interpreter can dlsym
    the registerer by name) and returns the `ctypes.CDLL`."""
    global _LIB
    if _LIB is None:
        lib = ctypes.CDLL(path or library_path(), mode=ctypes.RTLD_GLOBAL)
        lib.KerasSkim_Register.argtypes = [ctypes.c_void_p]
        lib.KerasSkim_Register.restype = ctypes.c_int
        lib.KerasSkim_LastError.restype = ctypes.c_char_p
        _LIB = lib
    return _LIB


def registerer():
    """The registerer for `custom_op_registerers`: the exported symbol name
    `"KerasSkim_Register"` (the library is loaded RTLD_GLOBAL first, builds it
    if needed). Use as
    `InterpreterWithCustomOps(..., custom_op_registerers=[registerer()])`."""
    load_library()
    return REGISTERER_SYMBOL


def register_callable(resolver_pointer):
    """Callable form of the registerer (receives the resolver pointer as int)."""
    lib = load_library()
    if lib.KerasSkim_Register(ctypes.c_void_p(resolver_pointer)) != 0:
        raise RuntimeError(f"KerasSkim_Register failed: {lib.KerasSkim_LastError().decode()}")


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
    """A LiteRT interpreter for `model_path` (or the bytes `model_content`),
    tensors not yet allocated: `InterpreterWithCustomOps` with our registerer
    when the model holds the `KerasSkimLSTM` op, the plain `Interpreter`
    otherwise."""
    from ai_edge_litert import interpreter as litert

    if (model_path is None) == (model_content is None):
        raise ValueError("pass exactly one of model_path and model_content")
    source = {"model_path": str(model_path)} if model_path is not None else {"model_content": bytes(model_content)}
    if OP_NAME in model_custom_ops(model_content if model_content is not None else model_path):
        return litert.InterpreterWithCustomOps(
            custom_op_registerers=[registerer()], num_threads=num_threads, **source
        )
    return litert.Interpreter(num_threads=num_threads, **source)


__all__ = [
    "OP_NAME",
    "library_path",
    "load_library",
    "make_interpreter",
    "model_custom_ops",
    "register_callable",
    "registerer",
]
