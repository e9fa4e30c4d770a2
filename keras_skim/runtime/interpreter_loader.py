"""Finds a TFLite interpreter without TensorFlow: `ai_edge_litert` (the
maintained LiteRT package) first, then the legacy `tflite_runtime` (which
needs numpy<2)."""


class RuntimeUnavailableError(ImportError):
    """No LiteRT / TFLite interpreter package is installed."""


def interpreter_class():
    """(Interpreter class, package name)."""
    try:
        from ai_edge_litert.interpreter import Interpreter

        return Interpreter, "ai-edge-litert"
    except ImportError:
        pass
    try:
        from tflite_runtime.interpreter import Interpreter

        return Interpreter, "tflite-runtime"
    except ImportError:
        raise RuntimeUnavailableError(
            "no TFLite interpreter: install ai-edge-litert (or tflite-runtime with numpy<2)"
        ) from None


def make_interpreter(model_path=None, model_content=None, num_threads=1):
    """An interpreter for a .tflite path or its bytes. Models of the custom-op
    backend (they hold the `KerasSkimLSTM` op) get
    `keras_skim.litert_ops.make_interpreter`, which registers our kernel."""
    if model_content is not None:
        holds_custom_op = b"KerasSkimLSTM" in model_content
    else:
        with open(model_path, "rb") as f:
            holds_custom_op = b"KerasSkimLSTM" in f.read()
    if holds_custom_op:
        from keras_skim import litert_ops

        if model_content is not None:
            return litert_ops.make_interpreter(model_content=model_content, num_threads=num_threads)
        return litert_ops.make_interpreter(str(model_path), num_threads=num_threads)
    cls, _ = interpreter_class()
    if model_content is not None:
        return cls(model_content=model_content, num_threads=num_threads)
    return cls(model_path=str(model_path), num_threads=num_threads)


def runtime_versions():
    """{package: version} of the interpreter packages and numpy."""
    from importlib import metadata

    versions = {}
    for name in ("ai-edge-litert", "tflite-runtime", "numpy"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return versions
