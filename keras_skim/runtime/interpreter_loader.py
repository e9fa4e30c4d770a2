"""Makes the runtime's model runner without TensorFlow.

A model with custom ops (whatever their names: the custom-op backend's
one of `contracts.CUSTOM_OPS`; the runner registers
every op of the library and names one it lacks in one line) runs
through the LiteRT 2.x C API (`keras_skim.runtime.litert_runner`): the route
the Android app takes for every model, and the only public way to register
a custom op. A builtin-only model runs on the ai-edge-litert Python
`Interpreter`, which was faster than the C API route on our builtin LSTM
export, the project's speed baseline (benchmarks/results/capi_runtime_speed.md),
so the baseline is never made slower. Both give the same outputs, bit for
bit on those exports (tests/runtime/test_litert_runner.py).
"""

import contextlib
import os
import sys
import tempfile
import threading

from keras_skim.runtime.litert_runner import LiteRtError, LiteRtModel
from keras_skim.runtime.tflite_check import check_model

# FlatBuffers address at most 2 GiB; LiteRT's larger models keep their
# weights outside the flatbuffer, which keras-skim exports never do.
MAX_MODEL_BYTES = (1 << 31) - 1


class RuntimeUnavailableError(ImportError):
    """No LiteRT interpreter package is installed."""


def interpreter_class():
    """(ai-edge-litert's Python `Interpreter` class, package name)."""
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError:
        raise RuntimeUnavailableError("no LiteRT interpreter: pip install 'ai-edge-litert>=2.1.6'") from None
    return Interpreter, "ai-edge-litert"


def custom_ops(model_content):
    """Names of the custom ops a .tflite (bytes) uses, after
    `tflite_check.check_model` found it well formed; `ModelCheckError` (a
    ValueError, one line) otherwise."""
    return list(check_model(model_content).custom_ops)


def read_model_file(path):
    """The bytes of a .tflite file, at most `MAX_MODEL_BYTES` (a flatbuffer
    cannot be larger); a FIFO or a device such as /dev/zero is refused
    unread (`contract_fields.NotRegularFile`, a ValueError)."""
    from keras_skim.contract_fields import NotRegularFile, read_limited

    try:
        return read_limited(os.fspath(path), MAX_MODEL_BYTES)
    except NotRegularFile:
        raise
    except ValueError:
        raise ValueError(f"larger than {MAX_MODEL_BYTES} bytes, the most a TFLite flatbuffer can hold") from None


def make_interpreter(model_path=None, model_content=None, num_threads=1):
    """The model at `model_path` (or the bytes `model_content`), ready to
    run: `get_signature_runner(key)(**inputs)` returns NumPy arrays.

    The flatbuffer is checked first (`tflite_check.check_model`: bounds,
    indices, buffer sizes), so a corrupt file is refused here in one line
    instead of crashing LiteRT. Models with custom ops get a
    `keras_skim.runtime.litert_runner.LiteRtModel` (LiteRT C API, every
    keras-skim op registered, compiled at once so that a missing op is
    reported here); builtin-only models get ai-edge-litert's Python
    `Interpreter`.

    Raises:
        ValueError: not a well-formed TFLite model (`ModelCheckError`), a
            file over `MAX_MODEL_BYTES`, or not exactly one of the two sources.
        OSError: the file cannot be read.
        LiteRtError (a RuntimeError): one line, when the model needs a custom
            op and LiteRT's C API is unavailable or the model does not compile
            (an op keras-skim does not provide, say).
    """
    if (model_path is None) == (model_content is None):
        raise ValueError("pass exactly one of model_path and model_content")
    if model_content is None:
        model_content = read_model_file(model_path)
    names = custom_ops(model_content)
    if names:
        with _native_info_dropped():
            model = LiteRtModel(model_content, num_threads=num_threads, checked=True)
        model.custom_op_names = names  # for the runtime's check of metadata.json against the model
        return model
    cls, _ = interpreter_class()
    with _native_info_dropped():
        interpreter = cls(model_content=bytes(model_content), num_threads=num_threads)
        interpreter.allocate_tensors()  # where LiteRT makes the XNNPACK delegate and says so
    return interpreter


_STDERR_LOCK = threading.Lock()


@contextlib.contextmanager
def _native_info_dropped():
    """LiteRT's C++ writes "INFO: Created TensorFlow Lite XNNPACK delegate
    for CPU." on the process's stderr (descriptor 2) when an interpreter is
    made: a library must not print that on its user's stderr. During the
    block descriptor 2 goes to a temporary file; afterwards its lines other
    than "INFO: ..." are passed on. A lock keeps two threads from swapping
    the descriptor at once."""
    with _STDERR_LOCK:
        try:
            sys.stderr.flush()
            saved = os.dup(2)
        except (OSError, ValueError):  # no descriptor 2 to redirect
            yield
            return
        with tempfile.TemporaryFile() as capture:
            os.dup2(capture.fileno(), 2)
            try:
                yield
            finally:
                os.dup2(saved, 2)
                os.close(saved)
                capture.seek(0)
                kept = [line for line in capture.read(1 << 20).splitlines(True) if not line.startswith(b"INFO: ")]
                if kept:
                    os.write(2, b"".join(kept))


def runtime_versions():
    """{package: version} of the runtime packages and numpy."""
    from importlib import metadata

    versions = {}
    for name in ("ai-edge-litert", "numpy"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return versions


__all__ = [
    "LiteRtError",
    "RuntimeUnavailableError",
    "custom_ops",
    "make_interpreter",
    "read_model_file",
    "runtime_versions",
]
