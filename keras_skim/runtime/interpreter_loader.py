"""Makes the runtime's model runner without TensorFlow.

Every .tflite, builtin-only or with keras-skim's custom ops, runs through the
LiteRT 2.x C API (`keras_skim.runtime.litert_runner`): the route the Android
app takes, so `keras-skim bench` measures what the phone runs. On our builtin
LSTM export that route is as fast as the ai-edge-litert Python
`Interpreter` (benchmarks/results/capi_runtime_speed.md).
"""
import os

from keras_skim.runtime.litert_runner import LiteRtError, LiteRtModel


def make_interpreter(model_path=None, model_content=None, num_threads=1):
    """The model at `model_path` (or the bytes `model_content`) compiled for
    the CPU with every keras-skim custom op registered: a
    `keras_skim.runtime.litert_runner.LiteRtModel`, whose
    `get_signature_runner(key)(**inputs)` returns NumPy arrays.

    Raises:
        ValueError: not a TFLite model, or not exactly one of the two sources.
        OSError: the file cannot be read.
        LiteRtError (a RuntimeError): one line, when LiteRT is unavailable or
            the model cannot be compiled (an unknown custom op, say).
    """
    if (model_path is None) == (model_content is None):
        raise ValueError("pass exactly one of model_path and model_content")
    if model_content is None:
        with open(os.fspath(model_path), "rb") as f:
            model_content = f.read()
    return LiteRtModel(model_content, num_threads=num_threads)


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


__all__ = ["LiteRtError", "make_interpreter", "runtime_versions"]
