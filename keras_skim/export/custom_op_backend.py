"""Optional export backend: a Skim-LSTM classifier as one custom LiteRT op.

`write_custom_op_model` writes the .tflite flatbuffer directly (LiteRT schema
object API, no converter):

    token_ids i32 [1,T] --GATHER(embedding)--> [1,T,e]
      --FULLY_CONNECTED([W | W_s | W_g], [b | b_s | b_g])--> proj [T, 4d+4d'+2]
    proj, threshold, U, U_s, U_g, token_ids
      --CUSTOM KerasSkimLSTM--> h [1,d], read_mask f32 [1,T], read_count i32 [1]
    h --FULLY_CONNECTED(dense)--> logits [1,k]   (before the Dense activation)

The model needs the `KerasSkimLSTM` kernel at run time:
`keras_skim.litert_ops.make_interpreter(path)` registers it. Token id 0 is
padding when the Embedding has `mask_zero=True` (the step is skipped, its
read_mask is 0). `custom_op_parity` checks decisions and outputs against Keras.
"""
import functools
import json

import numpy as np

from keras_skim.contracts import CUSTOM_OPS, SIGNATURE_KEY
from keras_skim.export.parity import sample_sequences

OP_NAME = CUSTOM_OPS["skim_lstm"]
_ACTIVATIONS = ("linear", "sigmoid", "softmax")


def _fail(layer, why):
    raise ValueError(f"custom-op export: unsupported layer {layer.name!r} ({type(layer).__name__}): {why}")


def _activation_name(fn):
    import keras

    name = getattr(fn, "__name__", str(fn))
    try:
        return keras.activations.serialize(fn) if not isinstance(name, str) else name
    except Exception:  # pragma: no cover
        return name


def read_model(model):
    """Checks the model's form and returns its float32 weights and settings.

    Form: Input(int [T]) -> Embedding -> RNN(SkimLSTMCell(d, d')) ->
    [Dropout ...] -> Dense(k, linear | sigmoid | softmax).
    """
    import keras

    from keras_skim.layers.skim_lstm_cell import SkimLSTMCell

    layers = [l for l in model.layers if not isinstance(l, keras.layers.InputLayer)]
    if len(model.inputs) != 1 or len(model.outputs) != 1:
        raise ValueError("custom-op export: the model must have one input and one output")
    if not layers:
        raise ValueError("custom-op export: the model has no layers")
    dtype = str(model.inputs[0].dtype)
    if "int" not in dtype:
        raise ValueError(f"custom-op export: the input must hold int token ids, got dtype {dtype}")
    expect = ["Embedding", "RNN", "Dense"]
    kinds = []
    for layer in layers:
        if isinstance(layer, keras.layers.Embedding):
            kinds.append("Embedding")
        elif type(layer) is keras.layers.RNN:
            kinds.append("RNN")
        elif isinstance(layer, keras.layers.Dropout):
            kinds.append("Dropout")
        elif type(layer) is keras.layers.Dense:
            kinds.append("Dense")
        else:
            _fail(layer, "expected Input -> Embedding -> RNN(SkimLSTMCell) -> [Dropout] -> Dense")
    core = [(k, l) for k, l in zip(kinds, layers) if k != "Dropout"]
    if [k for k, _ in core] != expect:
        bad = next((l for (k, l), e in zip(core, expect) if k != e), layers[-1])
        _fail(bad, "expected Input -> Embedding -> RNN(SkimLSTMCell) -> [Dropout] -> Dense")
    for i, kind in enumerate(kinds):
        if kind == "Dropout" and i < kinds.index("RNN"):
            _fail(layers[i], "Dropout is only supported between the RNN and the Dense layer")
    embedding, rnn, dense = (l for _, l in core)
    cell = rnn.cell
    if type(cell) is not SkimLSTMCell:
        _fail(rnn, f"its cell must be SkimLSTMCell, got {type(cell).__name__}")
    if rnn.return_sequences or rnn.go_backwards or rnn.stateful or getattr(rnn, "return_state", False):
        _fail(rnn, "return_sequences / return_state / go_backwards / stateful are not supported")
    if _activation_name(cell.activation) != "tanh" or _activation_name(cell.recurrent_activation) != "sigmoid":
        _fail(rnn, "the cell must use activation='tanh' and recurrent_activation='sigmoid'")
    output_activation = _activation_name(dense.activation)
    if output_activation not in _ACTIVATIONS:
        _fail(dense, f"activation {output_activation!r} (supported: {', '.join(_ACTIVATIONS)})")

    def arr(v):
        return np.asarray(keras.ops.convert_to_numpy(v), dtype=np.float32)

    d, ds = cell.units, cell.small_units
    e = int(embedding.output_dim)
    zeros = lambda n: np.zeros((n,), np.float32)  # noqa: E731
    w = {
        "emb": arr(embedding.embeddings),
        "W": arr(cell.kernel), "U": arr(cell.recurrent_kernel),
        "b": arr(cell.bias) if cell.use_bias else zeros(4 * d),
        "Wg": arr(cell.gate_kernel), "Ug": arr(cell.gate_recurrent_kernel), "bg": arr(cell.gate_bias),
        "Wd": arr(dense.kernel), "bd": arr(dense.bias) if dense.use_bias else zeros(dense.units),
    }
    if ds:
        w.update(Ws=arr(cell.small_kernel), Us=arr(cell.small_recurrent_kernel),
                 bs=arr(cell.small_bias) if cell.use_bias else zeros(4 * ds))
    else:
        w.update(Ws=np.zeros((e, 0), np.float32), Us=np.zeros((d, 0), np.float32), bs=zeros(0))
    if w["emb"].shape[1] != w["W"].shape[0]:
        _fail(rnn, "its input size differs from the embedding size")
    return {
        "weights": w, "d": d, "ds": ds, "mask_zero": bool(embedding.mask_zero),
        "output_activation": output_activation, "cell": cell,
        "vocabulary_size": int(w["emb"].shape[0]),
    }


# ------------------------------------------------------------------ flatbuffer
# LiteRT's custom-op path hands every constant tensor to the op as a host
# tensor buffer and refuses data that is not 64-byte aligned ("Unaligned host
# memory pointer"); the Python flatbuffers object API ignores the schema's
# force_align. So each buffer's data starts at a multiple of this from the
# start of the file (the runtime copies the file itself into aligned memory).
BUFFER_ALIGNMENT = 64


@functools.lru_cache(maxsize=None)
def _aligned_buffer_class(S):
    """A subclass of the schema's `BufferT` whose `data` (a uint8 array)
    packs at a multiple of `BUFFER_ALIGNMENT` from the start of the finished
    flatbuffer."""

    class AlignedBufferT(S.BufferT):
        def Pack(self, builder):
            # Flatbuffers grow from the end and Finish() pads the whole buffer
            # to the largest alignment asked for: padding here so that the
            # vector's first byte lands on a BUFFER_ALIGNMENT boundary from
            # the end puts it on one from the start too.
            builder.Prep(BUFFER_ALIGNMENT, len(self.data))
            data = builder.CreateNumpyVector(self.data)
            S.BufferStart(builder)
            S.BufferAddData(builder, data)
            return S.BufferEnd(builder)

    return AlignedBufferT


def _build_flatbuffer(info, threshold, length):
    import flatbuffers
    from ai_edge_litert import schema_py_generated as S

    w = info["weights"]
    d, ds = info["d"], info["ds"]
    V, e = w["emb"].shape
    K = 4 * d + 4 * ds + 2
    C = w["Wd"].shape[1]
    buffers = [S.BufferT()]  # buffer 0: empty, for non-constant tensors
    tensors = []

    def add_tensor(name, shape, ttype, buffer=0, signature=None):
        t = S.TensorT()
        t.name = name.encode()
        t.shape = list(shape)
        if signature is not None:
            t.shapeSignature = list(signature)
        t.type = ttype
        t.buffer = buffer
        tensors.append(t)
        return len(tensors) - 1

    def const(name, array):
        array = np.ascontiguousarray(array)
        b = _aligned_buffer_class(S)()
        b.data = np.frombuffer(array.tobytes(), np.uint8)
        buffers.append(b)
        ttype = S.TensorType.FLOAT32 if array.dtype == np.float32 else S.TensorType.INT32
        return add_tensor(name, array.shape, ttype, len(buffers) - 1)

    F32, I32 = S.TensorType.FLOAT32, S.TensorType.INT32
    t_tok = add_tensor("token_ids", [1, length], I32, signature=[1, -1])
    t_thr = add_tensor("threshold", [], F32)
    t_emb = const("embedding", w["emb"])
    t_W = const("input_kernel", np.concatenate([w["W"], w["Ws"], w["Wg"]], 1).T.copy())  # [K, e]
    t_b = const("input_bias", np.concatenate([w["b"], w["bs"], w["bg"]]))
    t_U = const("recurrent_kernel", w["U"])
    # d' = 0: a [d, 1] placeholder the op never reads (LiteRT's custom-op path
    # refuses tensors with a zero dimension).
    t_Us = const("small_recurrent_kernel", w["Us"] if ds else np.zeros((d, 1), np.float32))
    t_Ug = const("gate_recurrent_kernel", w["Ug"])
    t_Wd = const("dense_kernel", w["Wd"].T.copy())
    t_bd = const("dense_bias", w["bd"])
    t_x = add_tensor("embedded", [1, length, e], F32, signature=[1, -1, e])
    t_p = add_tensor("projections", [length, K], F32, signature=[-1, K])
    t_h = add_tensor("h", [1, d], F32)
    t_m = add_tensor("read_mask", [1, length], F32, signature=[1, -1])
    t_n = add_tensor("read_count", [1], I32)
    t_y = add_tensor("logits", [1, C], F32)

    def opcode(code, custom=None):
        oc = S.OperatorCodeT()
        oc.builtinCode = code
        oc.deprecatedBuiltinCode = min(code, 127)
        oc.version = 1
        if custom:
            oc.customCode = custom.encode()
        return oc

    codes = [opcode(S.BuiltinOperator.GATHER), opcode(S.BuiltinOperator.FULLY_CONNECTED),
             opcode(S.BuiltinOperator.CUSTOM, OP_NAME)]

    def op(index, inputs, outputs, options_type=0, options=None):
        o = S.OperatorT()
        o.opcodeIndex = index
        o.inputs = inputs
        o.outputs = outputs
        if options is not None:
            o.builtinOptionsType = options_type
            o.builtinOptions = options
        return o

    gather = S.GatherOptionsT()
    gather.axis = 0
    gather.batchDims = 0
    fc1, fc2 = S.FullyConnectedOptionsT(), S.FullyConnectedOptionsT()
    fc1.keepNumDims = fc2.keepNumDims = False
    custom_inputs = [t_p, t_thr, t_U, t_Us, t_Ug] + ([t_tok] if info["mask_zero"] else [])
    custom = op(2, custom_inputs, [t_h, t_m, t_n])
    custom.customOptionsFormat = S.CustomOptionsFormat.FLEXBUFFERS
    operators = [
        op(0, [t_emb, t_tok], [t_x], S.BuiltinOptions.GatherOptions, gather),
        op(1, [t_x, t_W, t_b], [t_p], S.BuiltinOptions.FullyConnectedOptions, fc1),
        custom,
        op(1, [t_h, t_Wd, t_bd], [t_y], S.BuiltinOptions.FullyConnectedOptions, fc2),
    ]
    subgraph = S.SubGraphT()
    subgraph.tensors = tensors
    subgraph.inputs = [t_tok, t_thr]
    subgraph.outputs = [t_y, t_m, t_n]
    subgraph.operators = operators
    subgraph.name = b"main"
    model = S.ModelT()
    model.version = 3
    model.operatorCodes = codes
    model.subgraphs = [subgraph]
    model.buffers = buffers
    model.description = json.dumps({
        "producer": "keras_skim.export.custom_op_backend", "custom_op": OP_NAME,
        "units": d, "small_units": ds, "threshold": float(threshold),
        "output_activation": info["output_activation"], "mask_zero": info["mask_zero"],
    }).encode()

    def tensor_map(name, index):
        m = S.TensorMapT()
        m.name = name.encode()
        m.tensorIndex = index
        return m

    signature = S.SignatureDefT()
    signature.signatureKey = SIGNATURE_KEY.encode()
    signature.subgraphIndex = 0
    signature.inputs = [tensor_map("token_ids", t_tok), tensor_map("threshold", t_thr)]
    signature.outputs = [tensor_map("logits", t_y), tensor_map("read_mask", t_m),
                         tensor_map("read_count", t_n)]
    model.signatureDefs = [signature]
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def write_custom_op_model(model, path, threshold=None, length=None):
    """Writes `model` as a .tflite using the `KerasSkimLSTM` custom op.

    Args:
        model: trained Keras model Input(int [T]) -> Embedding ->
            RNN(SkimLSTMCell) -> [Dropout] -> Dense(k).
        path: output .tflite path.
        threshold: default read threshold recorded in the model description
            (the `threshold` input is what the op uses); the cell's threshold
            when None.
        length: default T of `token_ids` (resizable); the model's input
            length, or 1 when that is not fixed.

    Returns:
        The path.

    Raises:
        ValueError: (one line) the model is not of the supported form.
    """
    data = custom_op_flatbuffer(model, threshold=threshold, length=length)
    with open(path, "wb") as f:
        f.write(data)
    return path


def custom_op_flatbuffer(model, threshold=None, length=None):
    """The bytes `write_custom_op_model` writes (same arguments, no path)."""
    info = read_model(model)
    if threshold is None:
        threshold = info["cell"].threshold
    if length is None:
        shape = model.inputs[0].shape
        length = int(shape[-1]) if shape[-1] is not None else 1
    return _build_flatbuffer(info, threshold, length)


# --------------------------------------------------------------------- backend
class CustomOpBackend:
    """The `custom` export backend: Skim-LSTM classifiers as one
    `KerasSkimLSTM` op (see the module docstring)."""

    name = "custom"
    custom_ops = (OP_NAME,)

    def check(self, model, plan):
        """The model form and the op library (compiled on first use);
        ExportError (one line) suggesting --backend builtin otherwise."""
        from keras_skim.export.errors import ExportError

        try:
            read_model(model)
        except ValueError as err:
            raise ExportError(f"{str(err).splitlines()[0]}; use --backend builtin") from None
        try:
            from keras_skim import litert_ops

            litert_ops.library_path()
        except (RuntimeError, OSError) as err:
            raise ExportError(
                f"--backend custom unavailable: {str(err).splitlines()[0]}; use --backend builtin"
            ) from None

    def flatbuffer(self, model, plan, *, threshold, length, fold=None):
        return custom_op_flatbuffer(model, threshold=threshold, length=length)


# ---------------------------------------------------------------------- parity
def custom_op_parity(model, path, samples=8, thresholds=None, seed=0, num_threads=1):
    """Compares the custom-op .tflite at `path` with Keras (`training=False`)
    through the exporter's one parity checker
    (`keras_skim.export.parity.check_parity`).

    Args:
        model: the Keras model that was written.
        path: its custom-op .tflite.
        samples: number of random token sequences (some with padding id 0),
            or a list of int sequences (id 0 = padding).
        thresholds: thresholds to check; default `parity_thresholds` of the
            cell's threshold.

    Returns:
        `keras_skim.export.parity.ParityResult`; ok iff every read/skim
        decision and read_count agree and outputs (after the Dense
        activation) are within 1e-4.
    """
    from keras_skim.export.model_plan import plan_model
    from keras_skim.export.parity import check_parity, parity_thresholds
    from keras_skim.runtime.interpreter_loader import make_interpreter

    plan = plan_model(model)
    if isinstance(samples, int):
        sequences = sample_sequences(plan.vocabulary_size, samples, seed=seed, padding_id=plan.padding_id)
    else:
        sequences = [np.asarray(s, np.int32).reshape(-1) for s in samples]
    if thresholds is None:
        thresholds = parity_thresholds(plan.emitter.default_threshold)
    signature = make_interpreter(model_path=path, num_threads=num_threads).get_signature_runner(
        SIGNATURE_KEY
    )

    def run(token_ids, threshold):
        return signature(token_ids=np.asarray(token_ids, np.int32), threshold=np.float32(threshold))

    return check_parity(model, plan, run, sequences, list(thresholds))
