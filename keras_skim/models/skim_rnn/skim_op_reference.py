"""The skim cells' op in NumPy (float64), on the op's own weight inputs:
the reference an int8 custom-op export is checked against (its dequantized
weights), and the benchmarks' check of the op's arithmetic."""

import numpy as np

from keras_skim.contracts import read_decisions
from keras_skim.export.parity import apply_activation
from keras_skim.models.skim_rnn.skim_op_weights import dequantized


def op_reference(info, ops, ids, threshold):
    """NumPy (float64) run of the cell's op on its own weight inputs `ops`
    (`skim_op_weights.quantized_weights`; int8 ones dequantized): (outputs
    after the Dense activation, read decisions [T])."""
    d, ds = info["d"], info["ds"]
    w, step = info["weights"], info["spec"].step
    rows, kernel = dequantized(ops)
    skim = ops["skim_kernel"].astype(np.float64)
    bias = ops["bias"].astype(np.float64)
    bhh = ops.get("recurrent_bias", np.zeros(d + ds)).astype(np.float64)
    blocks = info["spec"].blocks
    folded = kernel.shape[0] == d
    e = 0 if folded else rows.shape[1]
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
        read = bool(read_decisions(gate, threshold))  # the read rule's reference
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
