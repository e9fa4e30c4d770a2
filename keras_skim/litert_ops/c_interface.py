"""The ctypes binding of the op library's C interface (runner/keras_skim_c.h):
the function signatures, the `KerasSkimTensor` struct, and `load_library`,
which opens the file `library_file.library_path()` verified, once per
process, and checks every function and the C API version.
"""

import ctypes
import threading

from keras_skim.litert_ops.library_file import C_API_VERSION, library_path

_LOCK = threading.Lock()
_LIB = None


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
        "KerasSkim_TokenCallCreate": ([c_void_p, c_int, c_int, c_int, c_char_p, c_size_t], c_void_p),
        "KerasSkim_TokenCallRun": ([c_void_p, c_void_p, c_int, c_int, c_void_p], c_int),
        "KerasSkim_TokenCallError": ([c_void_p], c_char_p),
        "KerasSkim_TokenCallOutputs": ([c_void_p, c_void_p, c_int, c_char_p, c_size_t], c_int),
    }


def load_library(path=None):
    """The `ctypes.CDLL` of our library, loaded once per process after its
    checks (`library_path`), with the argument types of its C interface
    (runner/keras_skim_c.h); every function and the C API version are checked.

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
    """`KerasSkimTensor` of runner/keras_skim_c.h: one tensor passed in or out."""

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
