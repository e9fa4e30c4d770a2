"""Symmetric int8 weights with float32 scales: what the custom ops' int8
inputs are made of (the skim cells' ops: `skim_op_weights`; a model family's
own op), and their float64 values back for the NumPy references that an
int8 export is checked against."""

import numpy as np

QUANTIZE = (None, "int8")


def check_quantize(quantize):
    if quantize not in QUANTIZE:
        raise ValueError(f"custom-op export: quantize must be None or 'int8'; got {quantize!r}")


def quantize_int8(array, axis):
    """Symmetric int8 with one scale per slice along `axis` (0: per row,
    1: per column): (int8 values, float32 scales), value ~ q * scale."""
    array = np.asarray(array, np.float32)
    peak = np.max(np.abs(array), axis=1 - axis)
    scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    shaped = scale[:, None] if axis == 0 else scale[None, :]
    q = np.clip(np.rint(array / shaped), -127, 127).astype(np.int8)
    return q, scale


def dequantize(values, scale, axis):
    """float64 `values` times their `scale` per slice along `axis` (as
    `quantize_int8`); an empty `scale` means the values are float already."""
    values = np.asarray(values).astype(np.float64)
    if not np.asarray(scale).size:
        return values
    scale = np.asarray(scale, np.float64)
    return values * (scale[:, None] if axis == 0 else scale[None, :])
