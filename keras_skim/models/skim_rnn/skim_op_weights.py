"""The weight inputs of a skim cell's op (`KerasSkimLSTM`, `KerasSkimGRU`:
keras_skim/litert_ops/kernels/skim_rnn_op.h), packed from the `ModelPlan`
the builtin backend reads too: float32, folded into per-word rows, or int8
with float scales, and back (`dequantized`, for the NumPy reference).
"""

import numpy as np

from keras_skim.export.int8_weights import check_quantize, dequantize, quantize_int8
from keras_skim.models.skim_rnn.skim_op_cells import CELLS


def skim_op_model(plan):
    """What the op needs of a single-layer skim `plan` (its checks are the
    backend's: `custom_op_backend.op_refusal`): a dict of `weights` (float64:
    emb, the gate as one column gate_kernel / gate_recurrent / gate_bias,
    W, U, b, Ws, Us, bs, bhh, bhhs and the Dense head Wd, bd), d, ds,
    mask_zero, output_activation, threshold, spec (`SkimOpCell`) and
    vocabulary_size."""
    emitter = plan.emitter
    spec = CELLS[plan.model_kind]
    d, e = emitter.units, plan.embedding_dim
    kernel, bias, _ = plan.head[-1]
    weights = {
        "emb": plan.embedding,
        "gate_kernel": emitter.gate_kernel[:, 0],
        "gate_recurrent": emitter.gate_recurrent[:, 0],
        "gate_bias": emitter.gate_bias[0],
        "Wd": kernel,
        "bd": bias,
        "Ws": np.zeros((e, 0)),
        "Us": np.zeros((d, 0)),
        "bs": np.zeros(0),
        "bhhs": np.zeros(0),
    }
    weights.update(spec.read_weights(emitter))
    return {
        "weights": weights,
        "d": d,
        "ds": emitter.small_units,
        "mask_zero": plan.padding_id is not None,
        "output_activation": plan.output_activation,
        "threshold": emitter.default_threshold,
        "spec": spec,
        "vocabulary_size": plan.vocabulary_size,
    }


def should_fold(info):
    """Fold the input projections into per-word rows only if that does not
    grow the model: a row [G d + G d' + 1] no wider than the embedding."""
    blocks = info["spec"].blocks
    return blocks * (info["d"] + info["ds"]) + 1 <= info["weights"]["emb"].shape[1]


def _f32(array):
    return np.ascontiguousarray(array, np.float32)


def op_weights(info, fold=False):
    """The float32 weight inputs of the cell's op (see skim_rnn_op.h), G
    gate blocks per cell: rows, kernel [K, G d], skim_kernel [K, G d' + 1]
    and bias, K = e + d (projected) or d (folded: rows are [x W + b | x W_s
    + b_s | x w_g + b_g] per word, computed in float64, and bias is empty);
    a Skim-GRU's also recurrent_bias [d + d'] (skim_gru_op.h)."""
    w = info["weights"]
    skim_input = np.concatenate([w["Ws"], w["gate_kernel"][:, None]], 1)
    skim_recurrent = np.concatenate([w["Us"], w["gate_recurrent"][:, None]], 1)
    bias = np.concatenate([w["b"], w["bs"], [w["gate_bias"]]])
    cell = {}
    if info["spec"].has_recurrent_bias:
        cell["recurrent_bias"] = _f32(np.concatenate([w["bhh"], w["bhhs"]]))
    if fold:
        # float64 of the float32 weights the op would otherwise take
        kernel = np.concatenate([_f32(w["W"]), _f32(skim_input)], 1).astype(np.float64)
        rows = _f32(w["emb"]).astype(np.float64) @ kernel + _f32(bias)
        return {
            "rows": _f32(rows),
            "kernel": _f32(w["U"]),
            "skim_kernel": _f32(skim_recurrent),
            "bias": np.zeros((0,), np.float32),
            **cell,
        }
    return {
        "rows": _f32(w["emb"]),
        "kernel": _f32(np.concatenate([w["W"], w["U"]], 0)),
        "skim_kernel": _f32(np.concatenate([skim_input, skim_recurrent], 0)),
        "bias": _f32(bias),
        **cell,
    }


def quantized_weights(info, fold=False, quantize=None):
    """op_weights plus the int8 forms: with quantize="int8", rows (a scale
    per row) and kernel (a scale per column) become int8; the skim part, the
    bias and the dense head stay float32. Scales are empty when float."""
    check_quantize(quantize)
    ops = op_weights(info, fold=fold)
    empty = np.zeros((0,), np.float32)
    ops["rows_scale"] = ops["kernel_scale"] = empty
    if quantize == "int8":
        ops["rows"], ops["rows_scale"] = quantize_int8(ops["rows"], axis=0)
        ops["kernel"], ops["kernel_scale"] = quantize_int8(ops["kernel"], axis=1)
    return ops


def dequantized(ops):
    """float64 rows and kernel of `quantized_weights` (int8 times its scales)."""
    return dequantize(ops["rows"], ops["rows_scale"], axis=0), dequantize(ops["kernel"], ops["kernel_scale"], axis=1)
