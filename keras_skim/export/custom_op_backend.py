"""Optional export backend: a Skim-LSTM or Skim-GRU classifier as one custom
LiteRT op (`KerasSkimLSTM`, `KerasSkimGRU`: `skim_op_cells`).

`write_custom_op_model` writes the .tflite flatbuffer directly (LiteRT schema
object API, no converter):

    token_ids i32 [1,T], threshold, and the weights (skim_rnn_op.h)
      --CUSTOM KerasSkimLSTM | KerasSkimGRU--> h [1,d], mask f32 [1,T], read_count i32 [1]
    mask --CAST--> read_mask i32 [1,T]   (the one signature: keras_skim.contracts)
    h --FULLY_CONNECTED(dense)--> logits [1,k]   (before the Dense activation)

The op looks a token's embedding up and projects it itself, for the cell
that runs on it only: the big cell on read tokens, the small cell on skimmed
ones (or takes per-word folded rows, `fold=True`). `quantize="int8"` stores
the embedding and the big cell's kernel as int8 with float scales.
The model needs the op's kernel at run time:
`keras_skim.runtime.interpreter_loader.make_interpreter(path)` registers every op of the
library. Token id 0 is padding when the Embedding has `mask_zero=True` (the
step is skipped, its read_mask is 0). `custom_op_parity` checks decisions
and outputs against Keras.
"""

import numpy as np

from keras_skim import contracts
from keras_skim.contracts import CUSTOM_OPS, SIGNATURE_KEY
from keras_skim.export.flatbuffer_writer import BUFFER_ALIGNMENT  # noqa: F401  (the file's alignment)
from keras_skim.export.parity import apply_activation, sample_sequences
from keras_skim.export.plan import OUTPUT_ACTIVATIONS
from keras_skim.export.skim_op_cells import CELLS

OP_NAME = CUSTOM_OPS["skim_lstm"]
_FORM = "expected Input -> Embedding -> RNN(SkimLSTMCell | SkimGRUCell) -> [Dropout] -> Dense"


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

    Form: Input(int [T]) -> Embedding -> RNN(SkimLSTMCell(d, d') |
    SkimGRUCell(d, d')) -> [Dropout ...] -> Dense(k, linear | sigmoid |
    softmax). `weights` are float64 (the op's inputs are cast to float32).
    """
    import keras

    from keras_skim.layers.skim_gru import SkimGRU
    from keras_skim.layers.skim_gru_cell import SkimGRUCell
    from keras_skim.layers.skim_lstm import SkimLSTM
    from keras_skim.layers.skim_lstm_cell import SkimLSTMCell

    layers = [layer for layer in model.layers if not isinstance(layer, keras.layers.InputLayer)]
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
        elif type(layer) in (keras.layers.RNN, SkimLSTM, SkimGRU):
            kinds.append("RNN")
        elif isinstance(layer, keras.layers.Dropout):
            kinds.append("Dropout")
        elif type(layer) is keras.layers.Dense:
            kinds.append("Dense")
        else:
            _fail(layer, _FORM)
    core = [(k, layer) for k, layer in zip(kinds, layers) if k != "Dropout"]
    if [k for k, _ in core] != expect:
        bad = next((layer for (k, layer), e in zip(core, expect) if k != e), layers[-1])
        _fail(bad, _FORM)
    for i, kind in enumerate(kinds):
        if kind == "Dropout" and i < kinds.index("RNN"):
            _fail(layers[i], "Dropout is only supported between the RNN and the Dense layer")
    embedding, rnn, dense = (layer for _, layer in core)
    cell = rnn.cell
    spec = CELLS.get(type(cell).__name__) if type(cell) in (SkimLSTMCell, SkimGRUCell) else None
    if spec is None:
        _fail(rnn, f"its cell must be SkimLSTMCell or SkimGRUCell, got {type(cell).__name__}")
    if rnn.return_sequences or rnn.go_backwards or rnn.stateful or getattr(rnn, "return_state", False):
        _fail(rnn, "return_sequences / return_state / go_backwards / stateful are not supported")
    if _activation_name(cell.activation) != "tanh" or _activation_name(cell.recurrent_activation) != "sigmoid":
        _fail(rnn, "the cell must use activation='tanh' and recurrent_activation='sigmoid'")
    output_activation = _activation_name(dense.activation)
    if output_activation not in OUTPUT_ACTIVATIONS:
        _fail(dense, f"activation {output_activation!r} (supported: {', '.join(OUTPUT_ACTIVATIONS)})")

    def arr(v):
        return np.asarray(keras.ops.convert_to_numpy(v), dtype=np.float64)

    d, ds = cell.units, cell.small_units
    e = int(embedding.output_dim)
    w = {
        "emb": arr(embedding.embeddings),
        "Wg": arr(cell.gate_kernel),
        "Ug": arr(cell.gate_recurrent_kernel),
        "bg": arr(cell.gate_bias),
        "Wd": arr(dense.kernel),
        "bd": arr(dense.bias) if dense.use_bias else np.zeros(dense.units),
        "Ws": np.zeros((e, 0)),
        "Us": np.zeros((d, 0)),
        "bs": np.zeros(0),
        "bhhs": np.zeros(0),
    }
    w.update(spec.read_weights(cell))
    if w["emb"].shape[1] != w["W"].shape[0]:
        _fail(rnn, "its input size differs from the embedding size")
    return {
        "weights": w,
        "d": d,
        "ds": ds,
        "mask_zero": bool(embedding.mask_zero),
        "output_activation": output_activation,
        "cell": cell,
        "spec": spec,
        "vocabulary_size": int(w["emb"].shape[0]),
    }


# ----------------------------------------------------------- the op's inputs
def _gate(w):
    """The gate as one column: read logit minus skim logit (kernel, recurrent, bias)."""
    return w["Wg"][:, 0] - w["Wg"][:, 1], w["Ug"][:, 0] - w["Ug"][:, 1], w["bg"][0] - w["bg"][1]


def should_fold(info):
    """Fold the input projections into per-word rows only if that does not
    grow the model: a row [G d + G d' + 1] no wider than the embedding."""
    blocks = info["spec"].blocks
    return blocks * (info["d"] + info["ds"]) + 1 <= info["weights"]["emb"].shape[1]


def op_weights(info, fold=False):
    """The float32 weight inputs of the cell's op (see skim_rnn_op.h), G
    gate blocks per cell: rows, kernel [K, G d], skim_kernel [K, G d' + 1]
    and bias, K = e + d (projected) or d (folded: rows are [x W + b | x W_s
    + b_s | x w_g + b_g] per word, computed in float64, and bias is empty);
    a Skim-GRU's also recurrent_bias [d + d'] (skim_gru_op.h)."""
    w = info["weights"]
    wg, ug, bg = _gate(w)
    skim_input = np.concatenate([w["Ws"], wg[:, None]], 1)
    skim_recurrent = np.concatenate([w["Us"], ug[:, None]], 1)
    bias = np.concatenate([w["b"], w["bs"], [bg]])
    f32 = lambda a: np.ascontiguousarray(a, np.float32)  # noqa: E731
    cell = {}
    if info["spec"].has_recurrent_bias:
        cell["recurrent_bias"] = f32(np.concatenate([w["bhh"], w["bhhs"]]))
    if fold:
        # float64 of the float32 weights the op would otherwise take
        kernel = np.concatenate([f32(w["W"]), f32(skim_input)], 1).astype(np.float64)
        rows = f32(w["emb"]).astype(np.float64) @ kernel + f32(bias)
        return {
            "rows": f32(rows),
            "kernel": f32(w["U"]),
            "skim_kernel": f32(skim_recurrent),
            "bias": np.zeros((0,), np.float32),
            **cell,
        }
    return {
        "rows": f32(w["emb"]),
        "kernel": f32(np.concatenate([w["W"], w["U"]], 0)),
        "skim_kernel": f32(np.concatenate([skim_input, skim_recurrent], 0)),
        "bias": f32(bias),
        **cell,
    }


def quantize_int8(array, axis):
    """Symmetric int8 with one scale per slice along `axis` (0: per row,
    1: per column): (int8 values, float32 scales), value ~ q * scale."""
    array = np.asarray(array, np.float32)
    peak = np.max(np.abs(array), axis=1 - axis)
    scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    shaped = scale[:, None] if axis == 0 else scale[None, :]
    q = np.clip(np.rint(array / shaped), -127, 127).astype(np.int8)
    return q, scale


QUANTIZE = (None, "int8")


def _check_quantize(quantize):
    if quantize not in QUANTIZE:
        raise ValueError(f"custom-op export: quantize must be None or 'int8'; got {quantize!r}")


def quantized_weights(info, fold=False, quantize=None):
    """op_weights plus the int8 forms: with quantize="int8", rows (a scale
    per row) and kernel (a scale per column) become int8; the skim part, the
    bias and the dense head stay float32. Scales are empty when float."""
    _check_quantize(quantize)
    ops = op_weights(info, fold=fold)
    empty = np.zeros((0,), np.float32)
    ops["rows_scale"] = ops["kernel_scale"] = empty
    if quantize == "int8":
        ops["rows"], ops["rows_scale"] = quantize_int8(ops["rows"], axis=0)
        ops["kernel"], ops["kernel_scale"] = quantize_int8(ops["kernel"], axis=1)
    return ops


# ------------------------------------------------------------------ flatbuffer
def _build_flatbuffer(info, threshold, length, fold=False, quantize=None):
    from keras_skim.export.flatbuffer_writer import FlatbufferWriter

    w = info["weights"]
    d, ds = info["d"], info["ds"]
    C = w["Wd"].shape[1]
    ops = quantized_weights(info, fold=fold, quantize=quantize)
    fb = FlatbufferWriter()
    F32, I32 = np.float32, np.int32
    t_tok = fb.tensor(contracts.INPUT_TOKEN_IDS, [1, length], I32, signature=[1, -1])
    t_thr = fb.tensor(contracts.INPUT_THRESHOLD, [], F32)
    t_opt = fb.constant("options", np.array([int(info["mask_zero"])], np.int32))
    t_rows = fb.constant("rows", ops["rows"])
    t_rows_scale = fb.constant("rows_scale", ops["rows_scale"])
    t_kernel = fb.constant("kernel", ops["kernel"])
    t_kernel_scale = fb.constant("kernel_scale", ops["kernel_scale"])
    t_skim = fb.constant("skim_kernel", ops["skim_kernel"])
    t_bias = fb.constant("bias", ops["bias"])
    op_inputs = [t_tok, t_thr, t_opt, t_rows, t_rows_scale, t_kernel, t_kernel_scale, t_skim, t_bias]
    if "recurrent_bias" in ops:
        op_inputs.append(fb.constant("recurrent_bias", ops["recurrent_bias"]))
    t_Wd = fb.constant("dense_kernel", w["Wd"].T.astype(np.float32))
    t_bd = fb.constant("dense_bias", w["bd"].astype(np.float32))
    t_h = fb.tensor("h", [1, d], F32)
    # The op writes its mask as float32 (1.0 read, 0.0 skimmed); a CAST
    # gives the signature's int32 `read_mask`, the dtype of every export.
    t_op_mask = fb.tensor("read_mask_float", [1, length], F32, signature=[1, -1])
    t_m = fb.tensor(contracts.OUTPUT_READ_MASK, [1, length], I32, signature=[1, -1])
    t_n = fb.tensor(contracts.OUTPUT_READ_COUNT, [1], I32)
    t_y = fb.tensor(contracts.OUTPUT_LOGITS, [1, C], F32)
    op_name = info["spec"].op_name
    custom = fb.opcode(fb.S.BuiltinOperator.CUSTOM, op_name)
    dense = fb.opcode(fb.S.BuiltinOperator.FULLY_CONNECTED)
    cast = fb.opcode(fb.S.BuiltinOperator.CAST)
    fb.custom_operator(custom, op_inputs, [t_h, t_op_mask, t_n])
    fb.cast(cast, t_op_mask, t_m)
    fb.fully_connected(dense, [t_h, t_Wd, t_bd], [t_y])
    return fb.finish(
        [(contracts.INPUT_TOKEN_IDS, t_tok), (contracts.INPUT_THRESHOLD, t_thr)],
        [(contracts.OUTPUT_LOGITS, t_y), (contracts.OUTPUT_READ_MASK, t_m), (contracts.OUTPUT_READ_COUNT, t_n)],
        {
            "producer": "keras_skim.export.custom_op_backend",
            "custom_op": op_name,
            "units": d,
            "small_units": ds,
            "threshold": float(threshold),
            "output_activation": info["output_activation"],
            "mask_zero": info["mask_zero"],
            "folded": bool(fold),
            "quantize": quantize,
        },
    )


def write_custom_op_model(model, path, threshold=None, length=None, fold=None, quantize=None):
    """Writes `model` as a .tflite using the `KerasSkimLSTM` (or, for a
    Skim-GRU, `KerasSkimGRU`) custom op.

    Args:
        model: trained Keras model Input(int [T]) -> Embedding ->
            RNN(SkimLSTMCell | SkimGRUCell) -> [Dropout] -> Dense(k).
        path: output .tflite path.
        threshold: default read threshold recorded in the model description
            (the `threshold` input is what the op uses); the cell's threshold
            when None.
        length: default T of `token_ids` (resizable); the model's input
            length, or 1 when that is not fixed.
        fold: True stores, per word, the input terms of the big cell, the
            small cell and the gate ([V, G d + G d' + 1], G = 4 for an LSTM,
            3 for a GRU, instead of the [V, e]
            embedding and the input kernels): a read step then streams only
            the recurrent weights (faster, most at small d) but the file
            grows about (G d + G d' + 1) / e times the embedding. None folds
            only when that does not grow the model.
        quantize: None (float32) or "int8": int8 embedding (or folded rows;
            a scale per row) and big-cell kernel (a scale per column); the
            small cell, the gate and the Dense head stay float32.

    Returns:
        The path.

    Raises:
        ValueError: (one line) the model is not of the supported form.
    """
    data = custom_op_flatbuffer(model, threshold=threshold, length=length, fold=fold, quantize=quantize)
    with open(path, "wb") as f:
        f.write(data)
    return path


def custom_op_flatbuffer(model, threshold=None, length=None, fold=None, quantize=None):
    """The bytes `write_custom_op_model` writes (same arguments, no path)."""
    _check_quantize(quantize)
    info = read_model(model)
    if threshold is None:
        threshold = info["cell"].threshold
    if length is None:
        shape = model.inputs[0].shape
        length = int(shape[-1]) if shape[-1] is not None else 1
    fold = should_fold(info) if fold is None else bool(fold)
    return _build_flatbuffer(info, threshold, length, fold=fold, quantize=quantize)


# --------------------------------------------------------------------- backend
def stack_refusal(plan):
    """Why the custom ops do not export a stacked or bidirectional `plan`: one phrase."""
    layers = len(plan.layers)
    shape = f"{layers} recurrent layers" if layers > 1 else "a Bidirectional layer"
    if layers > 1 and any(layer.bidirectional for layer in plan.layers):
        shape += ", bidirectional"
    return (
        f"the custom ops run one forward recurrent layer and return its last state only; this model has {shape} "
        "(the builtin graph exports it)"
    )


class CustomOpBackend:
    """The `custom` export backend: one custom op per model kind,
    `contracts.CUSTOM_OPS` (Skim-LSTM and Skim-GRU classifiers:
    `KerasSkimLSTM`, `KerasSkimGRU`, see the module docstring;
    Structural-Jump-LSTM models: `KerasSjLSTM`, see
    `keras_skim.export.structural_jump_op`)."""

    name = "custom"
    custom_ops = tuple(CUSTOM_OPS.values())

    def ops_for(self, plan):
        """The custom ops an export of `plan` uses."""
        return (CUSTOM_OPS[plan.model_kind],) if plan.model_kind in CUSTOM_OPS else ()

    def check(self, model, plan):
        """The model form and the op library (built with the package);
        ExportError (one line) suggesting --backend builtin otherwise."""
        from keras_skim.export.errors import ExportError
        from keras_skim.export.sequence_input import takes_sequence

        if takes_sequence(plan):
            raise ExportError("the custom ops take token ids, not float sequences; use --backend builtin")
        if plan.stacked:
            raise ExportError(f"--backend custom: {stack_refusal(plan)}; use --backend builtin")
        if not plan.jumps:
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

    def flatbuffer(self, model, plan, *, threshold, length, fold=None, quantize=None):
        if plan.jumps:
            from keras_skim.export.structural_jump_op import structural_jump_flatbuffer

            return structural_jump_flatbuffer(plan, length=length, fold=fold)
        return custom_op_flatbuffer(model, threshold=threshold, length=length, quantize=quantize)

    def parity_reference(self, model, flatbuffer):
        """(reference, name) for the parity check of an int8 export: the op's
        own arithmetic on its dequantized weights; (None, "Keras") otherwise."""
        settings = model_settings(flatbuffer)
        if not settings["quantize"]:
            return None, "Keras"
        info = read_model(model)
        ops = quantized_weights(info, fold=settings["folded"], quantize=settings["quantize"])

        def reference(batch, threshold):
            return op_reference(info, ops, batch[0], threshold)

        return reference, "its dequantized weights"


# ---------------------------------------------------------------------- parity
def dequantized(ops):
    """float64 rows and kernel of `quantized_weights` (int8 times its scales)."""
    rows, kernel = ops["rows"].astype(np.float64), ops["kernel"].astype(np.float64)
    if ops["rows_scale"].size:
        rows = rows * ops["rows_scale"][:, None]
    if ops["kernel_scale"].size:
        kernel = kernel * ops["kernel_scale"][None, :]
    return rows, kernel


def _float32_cut(threshold):
    """The read rule's cut in float32, as the op computes it."""
    t = np.float32(threshold)
    if t <= 0:
        return np.float32(-np.inf)
    if t >= 1:
        return np.float32(np.inf)
    with np.errstate(invalid="ignore"):
        return np.float32(np.log(t) - np.log(np.float32(1.0) - t))


def op_reference(info, ops, ids, threshold):
    """NumPy (float64) run of the cell's op on its own weight inputs `ops`
    (`quantized_weights`; int8 ones dequantized): (outputs after the Dense
    activation, read decisions [T])."""
    d, ds = info["d"], info["ds"]
    w, step = info["weights"], info["spec"].step
    rows, kernel = dequantized(ops)
    skim = ops["skim_kernel"].astype(np.float64)
    bias = ops["bias"].astype(np.float64)
    bhh = ops.get("recurrent_bias", np.zeros(d + ds)).astype(np.float64)
    blocks = info["spec"].blocks
    folded = kernel.shape[0] == d
    e = 0 if folded else rows.shape[1]
    cut = _float32_cut(threshold)
    h, c = np.zeros(d), np.zeros(d)
    reads = np.zeros(len(ids), np.int32)
    for t, tok in enumerate(np.asarray(ids).reshape(-1)):
        if info["mask_zero"] and tok == 0:
            continue
        if folded:
            u, terms = h, rows[tok]
        else:
            u, terms = np.concatenate([rows[tok], h]), bias
        gate = terms[-1] + u @ skim[:, -1]
        read = np.float32(gate) >= cut
        if read:
            start, n, weights, b = 0, d, kernel, bhh[:d]
        elif ds:
            start, n, weights, b = blocks * d, ds, skim[:, :-1], bhh[d:]
        else:
            continue
        z_x = terms[start : start + blocks * n] + u[:e] @ weights[:e]
        h, c = step(h, c, z_x, h @ weights[e:], n, b)
        reads[t] = int(read)
    logits = h @ w["Wd"] + w["bd"]
    return apply_activation(logits[None], info["output_activation"]), reads


def model_settings(path_or_bytes):
    """The settings a custom-op .tflite records in its description: units,
    small_units, threshold, output_activation, mask_zero, folded, quantize."""
    from keras_skim.export.flatbuffer_writer import model_description

    settings = model_description(path_or_bytes)
    settings.setdefault("folded", False)
    settings.setdefault("quantize", None)
    return settings


def custom_op_parity(model, path, samples=8, thresholds=None, seed=0, num_threads=1):
    """Compares the custom-op .tflite at `path` with Keras (`training=False`)
    through the exporter's one parity checker
    (`keras_skim.export.parity.check_parity`).

    A float model is compared with the Keras model itself. An int8 model
    (`quantize="int8"`) is compared with `op_reference` on its dequantized
    weights, so that the check still holds it to every decision and 1e-4
    (how far int8 moves from the float model is measured, not checked: see
    benchmarks/trained_export_speed.py).

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
    signature = make_interpreter(model_path=path, num_threads=num_threads).get_signature_runner(SIGNATURE_KEY)

    def run(token_ids, threshold):
        return signature(token_ids=np.asarray(token_ids, np.int32), threshold=np.float32(threshold))

    with open(path, "rb") as f:
        reference, against = CustomOpBackend().parity_reference(model, f.read())
    return check_parity(model, plan, run, sequences, list(thresholds), reference=reference, against=against)
