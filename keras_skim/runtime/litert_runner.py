"""Runs a .tflite through the LiteRT 2.x C API, the way the Android app does
(`keras_skim.runtime.interpreter_loader.make_interpreter` uses it for every
model with custom ops):
ctypes over keras-skim's small C++ library (`keras_skim.litert_ops`), which
loads `libLiteRt.so` from the `ai-edge-litert` wheel, registers every custom
op keras-skim provides, compiles the model for the CPU (XNNPACK, one thread
by default) and runs it. Imports neither TensorFlow nor Keras.

Why ctypes over our C++ rather than ctypes straight on libLiteRt.so: the
custom op is C++ anyway, a run is then one ctypes call (`SignatureRunner`;
`TokenCall` for one text of token ids, the runtime's per-text path)
instead of some twenty C API calls (tensor buffers, locks, layouts), and
Python, the JVM shim and the aarch64 check share one C++ runner
(`model_runner.cc`) instead of three copies of its logic.

    model = LiteRtModel(open("model.tflite", "rb").read())
    out = model.get_signature_runner("serving_default")(
        token_ids=np.array([[5, 9, 3]], np.int32), threshold=np.float32(0.5))
    out["logits"], out["read_mask"], out["read_count"]   # NumPy arrays
"""

import ctypes
import os
import threading

import numpy as np

LITERT_LIBRARY_ENV = "KERAS_SKIM_LITERT_LIB"
# ai-edge-litert releases whose libLiteRt.so this runtime was tested with
# (tests/runtime/test_litert_runner.py, the JVM and aarch64 checks).
TESTED_LITERT = ("2.1.6", "2.2.0", "2.3.0")
MINIMUM_LITERT = (2, 1, 6)

_TYPES = {1: np.float32, 2: np.int32, 3: np.uint8, 4: np.int64, 6: np.bool_, 7: np.int16, 9: np.int8, 10: np.float16}
_CODES = {np.dtype(v): k for k, v in _TYPES.items()}
_INT32 = np.dtype(np.int32)
_OUTPUTS_MADE = 3  # KerasSkim_TokenCallRun: the run succeeded and its outputs were made anew
_COPY = np.ndarray.copy
_ERROR_SIZE = 1024

_LOCK = threading.Lock()
_LOADED = None  # (ctypes library, libLiteRt.so path) once loaded


def _fits(array, dtype):
    """Whether every value of an integer array is representable in `dtype`."""
    if array.dtype.kind not in "iub":
        return True
    info = np.iinfo(dtype)
    return int(array.min()) >= info.min and int(array.max()) <= info.max


class LiteRtError(RuntimeError):
    """The LiteRT C library cannot be loaded, or a model cannot be compiled or
    run through it; the message is one line."""


def _version_tuple(text):
    parts = []
    for piece in text.split(".")[:3]:
        digits = "".join(c for c in piece if c.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts + [0] * (3 - len(parts)))


def litert_library_path():
    """`$KERAS_SKIM_LITERT_LIB`, else `libLiteRt.so` of the installed
    `ai-edge-litert` package (found without importing it).

    Raises:
        LiteRtError: no such library, or an ai-edge-litert older than 2.1.6.
    """
    override = os.environ.get(LITERT_LIBRARY_ENV)
    if override:
        if not os.path.isfile(override):
            raise LiteRtError(f"{LITERT_LIBRARY_ENV}={override}: no such file (expected libLiteRt.so)")
        return override
    import importlib.util
    from importlib import metadata

    spec = importlib.util.find_spec("ai_edge_litert")
    if spec is None or not spec.submodule_search_locations:
        raise LiteRtError(
            f"the LiteRT C library is missing: pip install 'ai-edge-litert>=2.1.6' "
            f"(or set {LITERT_LIBRARY_ENV} to a libLiteRt.so)"
        )
    try:
        version = metadata.version("ai-edge-litert")
    except metadata.PackageNotFoundError:
        version = None
    if version is not None and _version_tuple(version) < MINIMUM_LITERT:
        raise LiteRtError(
            f"ai-edge-litert {version} is too old: keras-skim needs >= 2.1.6 (tested: {', '.join(TESTED_LITERT)})"
        )
    path = os.path.join(list(spec.submodule_search_locations)[0], "libLiteRt.so")
    if not os.path.isfile(path):
        raise LiteRtError(f"ai-edge-litert {version} has no {path} (keras-skim needs its LiteRT C library)")
    return path


def load():
    """(ctypes library, libLiteRt.so path): our library built and loaded and
    the LiteRT C library loaded into it, once per process.

    Raises:
        LiteRtError: one line (no compiler, build failure, no or unusable
            libLiteRt.so).
    """
    global _LOADED
    with _LOCK:
        if _LOADED is not None:
            return _LOADED
        from keras_skim import litert_ops

        try:
            lib = litert_ops.load_library()
        except (RuntimeError, OSError) as err:
            raise LiteRtError(str(err).strip().splitlines()[0]) from None
        path = litert_library_path()
        loaded = ctypes.create_string_buffer(4096)
        error = ctypes.create_string_buffer(_ERROR_SIZE)
        if lib.KerasSkim_LoadLiteRt(path.encode(), loaded, len(loaded), error, len(error)) != 0:
            raise LiteRtError(error.value.decode(errors="replace"))
        _LOADED = (lib, loaded.value.decode())
        return _LOADED


class LiteRtModel:
    """A .tflite model compiled for the CPU through the LiteRT C API, every
    keras-skim custom op registered. Errors (an unknown custom op, a model
    LiteRT cannot read) are raised here, never at the first run.

    Args:
        model_content: the .tflite bytes (copied).
        num_threads: CPU threads (XNNPACK and the interpreter).
        checked: whether `tflite_check.check_model` already accepted the
            bytes (otherwise it is run here: LiteRT never sees a malformed
            flatbuffer).

    Raises:
        ValueError: the bytes are not a well-formed TFLite model.
        LiteRtError: one line: LiteRT unavailable, or the model cannot be
            compiled (for example it needs a custom op keras-skim lacks).
    """

    def __init__(self, model_content, num_threads=1, checked=False):
        data = bytes(model_content)
        if not checked:
            from keras_skim.runtime.tflite_check import check_model

            check_model(data)
        if int(num_threads) < 1:
            raise ValueError(f"num_threads must be at least 1, got {num_threads}")
        self._lib, self.litert_path = load()
        self._lock = threading.Lock()
        error = ctypes.create_string_buffer(_ERROR_SIZE)
        handle = self._lib.KerasSkim_ModelCreate(data, len(data), int(num_threads), error, len(error))
        if not handle:
            raise LiteRtError(error.value.decode(errors="replace"))
        self._handle = handle
        self.num_threads = int(num_threads)
        self._signatures = {}
        lib = self._lib
        for s in range(lib.KerasSkim_NumSignatures(handle)):
            key = lib.KerasSkim_SignatureKey(handle, s).decode()
            self._signatures[key] = (s, self._tensors(s, 1), self._tensors(s, 0))

    def _tensors(self, signature, is_input):
        lib, handle = self._lib, self._handle
        out = []
        type_, rank, dims = ctypes.c_int(), ctypes.c_int(), (ctypes.c_int32 * 8)()
        for i in range(lib.KerasSkim_NumTensors(handle, signature, is_input)):
            name = lib.KerasSkim_TensorInfo(
                handle, signature, is_input, i, ctypes.byref(type_), ctypes.byref(rank), dims
            )
            out.append((name.decode(), type_.value, tuple(dims[: rank.value])))
        return out

    def close(self):
        """Frees the compiled model (also done when the object is collected)."""
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._lib.KerasSkim_ModelDestroy(handle)

    def __del__(self):
        self.close()

    def get_signature_list(self):
        """{signature key: {"inputs": [names], "outputs": [names]}}."""
        return {
            key: {"inputs": [t[0] for t in ins], "outputs": [t[0] for t in outs]}
            for key, (_, ins, outs) in self._signatures.items()
        }

    def get_signature_runner(self, signature_key=None):
        """A callable `runner(**inputs) -> {output name: np.ndarray}` for one
        signature (the first one when `signature_key` is None)."""
        if not self._signatures:
            raise ValueError("the model has no signature")
        if signature_key is None:
            signature_key = next(iter(self._signatures))
        if signature_key not in self._signatures:
            raise ValueError(f"no signature {signature_key!r} (the model has: {', '.join(self._signatures)})")
        return SignatureRunner(self, signature_key)


class SignatureRunner:
    """Runs one signature of a `LiteRtModel`: each call copies the inputs in
    (resizing those whose shape changed), runs, and returns fresh NumPy
    arrays of the outputs, in one call into the C++ runner.

    The per-call Python work is kept small, since it is part of the fixed
    cost of every text (benchmarks/runtime_fixed_cost.py): an input that is
    already a C-contiguous array of the input's type only has its address
    passed (its rank and sizes only when its shape changed, its address only
    when it is another array than the last call's), a NumPy scalar
    of the type is written into a buffer owned by the runner, and an output
    is copied out of a view that is made again only when LiteRT moved or
    resized its buffer. Anything else goes through the checked conversion
    (`_array`)."""

    def __init__(self, model, key):
        from keras_skim.litert_ops import Tensor

        self._model = model
        self.key = key
        self._index, self._inputs, self._outputs = model._signatures[key]
        self._input_index = {name: i for i, (name, _, _) in enumerate(self._inputs)}
        self._error = ctypes.create_string_buffer(_ERROR_SIZE)
        self._in = (Tensor * max(len(self._inputs), 1))()
        self._out = (Tensor * max(len(self._outputs), 1))()
        for i, (_, type_code, _) in enumerate(self._inputs):
            self._in[i].type = type_code
        self._wanted = [(name, np.dtype(_TYPES[t]) if t in _TYPES else None, shape) for name, t, shape in self._inputs]
        # Per input: (name, wanted dtype, declared shape, its struct, a 0-d buffer for scalar inputs).
        self._slots = []
        for i, (name, want, declared) in enumerate(self._wanted):
            scalar = np.zeros((), want) if want is not None and not declared else None
            self._slots.append((name, want, declared, self._in[i], scalar))
        self._shapes = [None] * len(self._inputs)  # the shape each input struct describes now
        self._bound = [None] * len(self._inputs)  # the array each input struct points at now
        self._views = []  # per output, an array over LiteRT's buffer, valid while the structs read `_described`
        self._described = None
        self._calls = {}  # (inputs, invoke, outputs) -> the arguments of KerasSkim_Run, converted once

    def get_input_details(self):
        """{input name: {"dtype", "shape"}} (shape as declared; -1 = any size)."""
        return {n: {"dtype": _TYPES.get(t), "shape": s} for n, t, s in self._inputs}

    def get_output_details(self):
        return {n: {"dtype": _TYPES.get(t), "shape": s} for n, t, s in self._outputs}

    def _array(self, name, value, want, declared):
        array = value if type(value) is np.ndarray else np.asarray(value)
        if array.dtype != want:
            if want is None:
                raise ValueError(f"input {name!r} has an element type keras-skim cannot pass")
            if not np.can_cast(array.dtype, want, "same_kind"):
                raise ValueError(f"input {name!r} takes {want.name}, got {array.dtype.name}")
            if want.kind in "iu" and array.size and not _fits(array, want):
                # astype would wrap (2**32 + 5 -> 5) and run another input.
                info = np.iinfo(want)
                raise ValueError(f"input {name!r} takes {want.name}: values must lie in [{info.min}, {info.max}]")
            array = array.astype(want)
        if not declared and array.ndim and array.size == 1:
            array = array.reshape(())
        if array.ndim > 8:
            raise ValueError(f"input {name!r} has rank {array.ndim} (at most 8)")
        if not array.flags.c_contiguous:
            array = array.copy()
        return array

    def _fill(self, inputs):
        """Points the input structs at the (checked, contiguous) arrays;
        returns what must stay alive until the run has copied them."""
        if inputs.keys() != self._input_index.keys():
            unknown = sorted(set(inputs) - set(self._input_index))
            missing = sorted(set(self._input_index) - set(inputs))
            problem = f"unknown input(s) {', '.join(unknown)}" if unknown else f"missing input(s) {', '.join(missing)}"
            raise ValueError(f"signature {self.key!r}: {problem} (inputs: {', '.join(self._input_index)})")
        kept = []
        for i, (name, want, declared, tensor, scalar) in enumerate(self._slots):
            value = inputs[name]
            if scalar is not None and type(value) is want.type:  # np.float32(t) for a float32 scalar input
                scalar[()] = value
                array = scalar
            elif (
                declared
                and type(value) is np.ndarray
                and value.dtype is want
                and value.flags.c_contiguous
                and value.ndim <= 8
            ):
                array = value
            else:
                array = self._array(name, value, want, declared)
            if array is not self._bound[i] or array.shape != self._shapes[i]:
                self._point(i, tensor, array)
            kept.append(array)
        return kept

    def _point(self, i, tensor, array):
        """Points input struct `i` at `array` (rank, sizes and bytes only when they changed).

        The struct keeps the array's address while the same array object
        comes again with the same shape (a caller's reused buffer, the
        runtime's padded ids, the runner's scalar buffer): reading the
        address (`array.ctypes.data`, about a microsecond) was the dearest
        step of a call's input. An array's memory cannot move while the
        struct's reference is held: NumPy refuses to resize a referenced
        array and its `data` cannot be reassigned."""
        shape = array.shape
        if shape != self._shapes[i]:
            tensor.rank = array.ndim
            tensor.dims[: array.ndim] = shape
            tensor.bytes = array.nbytes
            self._shapes[i] = shape
        if array is not self._bound[i]:
            tensor.data = array.ctypes.data
            self._bound[i] = array

    def _run(self, inputs, invoke, outputs):
        if not self._model._handle:
            raise ValueError("the model is closed")
        call = self._calls.get((inputs, invoke, outputs))
        if call is None:
            call = self._calls[inputs, invoke, outputs] = self._bind(inputs, invoke, outputs)
        code = call[0](*call[1])
        if code:  # 1: the inputs, 2: the run
            raise (ValueError if code == 1 else LiteRtError)(self._error.value.decode(errors="replace"))

    def _bind(self, inputs, invoke, outputs):
        """(function, arguments) of one kind of KerasSkim_Run call, the
        arguments as ctypes values: a call then converts nothing (ctypes'
        conversion through argtypes was half of the call's Python cost,
        part of every text's fixed cost). A function object of its own
        (`lib[name]`), without argtypes, so the library's stays as it is."""
        fn = self._model._lib["KerasSkim_Run"]
        fn.restype = ctypes.c_int
        error = self._error
        arguments = (
            ctypes.c_void_p(self._model._handle),
            ctypes.c_int(self._index),
            self._in if inputs else None,
            ctypes.c_int(len(self._inputs)),
            ctypes.c_int(int(invoke)),
            self._out if outputs else None,
            ctypes.c_int(len(self._outputs)),
            error,
            ctypes.c_size_t(len(error)),
        )
        return fn, arguments

    def _read(self):
        """{output name: a copy of the output}. A view into LiteRT's buffer
        is made again only when its output struct changed (address, size or
        shape; after an input resize, read_mask's): comparing the structs'
        bytes is one call when none did."""
        described = bytes(self._out)
        if described != self._described:
            size = ctypes.sizeof(self._out[0]) if self._outputs else 0
            old = self._described or b""
            self._views = [
                self._views[i]
                if old[i * size : (i + 1) * size] == described[i * size : (i + 1) * size]
                else self._view(self._out[i])
                for i in range(len(self._outputs))
            ]
            self._described = described
        return {name: view.copy() for (name, _, _), view in zip(self._outputs, self._views)}

    @staticmethod
    def _view(tensor):
        """A NumPy array over an output struct's memory (zeros if it has none)."""
        dtype = np.dtype(_TYPES.get(tensor.type, np.uint8))
        shape = tuple(tensor.dims[: tensor.rank])
        if not tensor.bytes:
            return np.zeros(shape, dtype)
        raw = (ctypes.c_char * tensor.bytes).from_address(tensor.data)
        return np.frombuffer(raw, dtype=dtype).reshape(shape)

    def __call__(self, **inputs):
        """Sets the inputs, runs, returns {output name: new array}."""
        with self._model._lock:
            kept = self._fill(inputs)
            self._run(True, True, True)
            del kept
            return self._read()

    # The three steps of a call, for timing the run alone.
    def set_inputs(self, **inputs):
        with self._model._lock:
            kept = self._fill(inputs)
            self._run(True, False, False)
            del kept

    def invoke(self):
        with self._model._lock:
            self._run(False, True, False)

    def get_outputs(self):
        with self._model._lock:
            self._run(False, False, True)
            return self._read()

    def token_call(self, ids_name, threshold_name, per_token, lengths, check):
        """A `TokenCall` that runs one text of token ids through this
        signature in one call (see there)."""
        return TokenCall(self, ids_name, threshold_name, per_token, lengths, check)


class TokenCall:
    """Runs one text of token ids through a signature in one call into the
    C++ runner (`KerasSkim_TokenCallRun`), the per-text path of
    `keras_skim.runtime.runner.SkimRunner`: C++ writes the ids and their
    padding (id 0) into the model's input and sets the threshold, and the
    outputs come back as new arrays, those with one value per token cut back
    to the text's length.

    The Python around the C call is what a text pays on top of the model, and
    where other work runs between texts (another model, the bench's baseline)
    every line of it runs from a cold cache. So a call passes five arguments
    (the ids and the threshold as bytes: no address to read), and the C call
    says when the outputs were made anew: only then are the output views,
    their cuts and the caller's checks (`check`) made again (and when the
    input length changed).

    Args:
        signature: the `SignatureRunner`.
        ids_name: its int32 [1, T] input of token ids.
        threshold_name: its float32 scalar threshold input, or None; the
            signature must take no other input.
        per_token: names of the outputs with one value per token ([1, T]).
        lengths: picks the input length of each text: a
            `keras_skim.runtime.token_padding.TokenPadding` (its `length`,
            kept for texts of `low` < T <= `length`, else `length_for(T)`).
        check: `check(outputs, length)`, called with {name: array} of the
            uncut outputs whenever they are described anew; it raises to
            refuse them (the run's result is then not returned).

    Raises:
        ValueError: the signature's inputs are not those.
    """

    def __init__(self, signature, ids_name, threshold_name, per_token, lengths, check):
        from keras_skim.litert_ops import Tensor

        names = [name for name, _, _ in signature._inputs]
        if ids_name not in names or (threshold_name is not None and threshold_name not in names):
            raise ValueError(f"signature {signature.key!r} takes {', '.join(names)}, not {ids_name}")
        model = signature._model
        lib = model._lib
        error = ctypes.create_string_buffer(_ERROR_SIZE)
        threshold = names.index(threshold_name) if threshold_name is not None else -1
        handle = lib.KerasSkim_TokenCallCreate(
            model._handle, signature._index, names.index(ids_name), threshold, error, len(error)
        )
        if not handle:
            raise ValueError(f"signature {signature.key!r}: {error.value.decode(errors='replace')}")
        self._model, self._lock, self._lib, self._handle = model, model._lock, lib, handle
        self._names = tuple(name for name, _, _ in signature._outputs)
        self._per_token = frozenset(per_token)
        self._lengths = lengths
        self._check = check
        self._out = (Tensor * max(len(self._names), 1))()
        fn = lib["KerasSkim_TokenCallRun"]  # a function object of its own, without argtypes (see _bind)
        fn.restype = ctypes.c_int
        self._fn = fn
        self._call = ctypes.c_void_p(handle)
        self._length = None  # the input length the views were checked at (None: describe them)
        self._views = ()
        self._cuts = {}  # text length -> the views cut to it, in output order

    def __call__(self, ids, threshold):
        """{output name: new array} of one text: `ids` int32 [1, T] or [T]
        (T >= 1); `threshold` a float32 (ignored without a threshold input)."""
        count = ids.shape[-1]
        data = ids.tobytes() if ids.dtype is _INT32 else np.ascontiguousarray(ids, np.int32).tobytes()
        value = threshold.tobytes() if type(threshold) is np.float32 else np.float32(threshold).tobytes()
        with self._lock:
            length = self._lengths.length_for(count)
            if not self._model._handle:
                raise ValueError("the model is closed")
            code = self._fn(self._call, data, count, length, value)
            if code or length != self._length:
                self._after(code, length)
            views = self._cuts.get(count) or self._cut(count)
            return dict(zip(self._names, map(_COPY, views)))

    def _after(self, code, length):
        """Raises a failed run's error (1: the inputs, 2: the run); otherwise
        describes the outputs again (made anew, or another input length)."""
        if code and code != _OUTPUTS_MADE:
            message = self._lib.KerasSkim_TokenCallError(self._handle).decode(errors="replace")
            raise (ValueError if code == 1 else LiteRtError)(message)
        self._length, self._cuts = None, {}
        error = ctypes.create_string_buffer(_ERROR_SIZE)
        if self._lib.KerasSkim_TokenCallOutputs(self._handle, self._out, len(self._names), error, len(error)):
            raise LiteRtError(error.value.decode(errors="replace"))
        self._views = tuple(SignatureRunner._view(self._out[i]) for i in range(len(self._names)))
        self._check(dict(zip(self._names, self._views)), length)
        self._length = length

    def _cut(self, count):
        cut = self._cuts[count] = tuple(
            view[..., :count] if name in self._per_token else view for name, view in zip(self._names, self._views)
        )
        return cut
