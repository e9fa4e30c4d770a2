"""FLOP counts and Flop-r of Structural-Jump-LSTM.

Same counting rules as `keras_skim.analysis.flops`: a multiply-add is 2
FLOPs, an element-wise operation (bias add, activation, gate product) 1,
an argmax over k values k - 1 comparisons. The value heads run only in
training and are not counted; the classifier head runs once per document
in both models and is left out, as the skim cells' Flop-R
(`keras_skim.analysis.flops`) leaves it out.

Per document of n words, of which `visited` were not jumped over and
`read` updated the LSTM:

    F_lstm(d_in) = 8 m (d_in + m) + 13 m
    F_skip = 2 a (m + d + 6) + 2 a + 2 * 2 a + 2 + 1    (hidden, ReLU, logits, argmax)
    F_jump = 2 a m + 2 a + 2 * 4 a + 4 + 3
    FLOPs_SJ   = visited * F_skip + read * (F_lstm(d + 6) + F_jump)
    FLOPs_full = n * F_lstm(d)      (a vanilla LSTM of the same size reading every word)

with m the LSTM size, d the word vector size, a the agents' size and
d + 6 the LSTM input (the word and the previous actions' one-hots).
Flop-r is reported both at corpus level, sum FLOPs_full / sum FLOPs_SJ, and
as the mean over documents of the per-document ratio.

The paper (Hansen et al. 2019) gives no formula and its code counts no
FLOPs. Its Flop-r values cannot be reproduced from its own Table 2 with a
FLOP count of this kind: for every dataset Flop-r x Read is 1.21-1.31,
i.e. Flop-r > 1/Read, which no cost model with non-negative agent overhead
gives when Read is the corpus fraction (see the project's SJ-LSTM notes,
section 3). Expect our values to come out 20-30% below the paper's at the
same read fractions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from keras_skim.analysis.flops import rnn_step_flops

_PREVIOUS_ACTIONS = 6  # one-hots of the previous skip (2) and jump (4) actions


def structural_jump_step_flops(units, embedding_dim, agent_units=25):
    """FLOPs of the pieces of one step.

    Returns:
        dict with `lstm` (one step on d + 6 inputs), `skip_agent`,
        `jump_agent`, `read_step` (LSTM + jump agent, after the skip agent)
        and `baseline_lstm` (one step of a vanilla LSTM on d inputs).
    """
    m, d, a = units, embedding_dim, agent_units
    for name, value in (("units", m), ("embedding_dim", d), ("agent_units", a)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1; got {value!r}")
    lstm = rnn_step_flops("lstm", m, d + _PREVIOUS_ACTIONS)
    skip = 2 * a * (m + d + _PREVIOUS_ACTIONS) + 2 * a + 2 * 2 * a + 2 + 1
    jump = 2 * a * m + 2 * a + 2 * 4 * a + 4 + 3
    return {
        "lstm": lstm,
        "skip_agent": skip,
        "jump_agent": jump,
        "read_step": lstm + jump,
        "baseline_lstm": rnn_step_flops("lstm", m, d),
    }


def structural_jump_flop_report(
    word_count: ArrayLike, visited: ArrayLike, read: ArrayLike, units: int, embedding_dim: int, agent_units: int = 25
) -> dict[str, Any]:
    """Flop-r of a Structural-Jump-LSTM on a corpus.

    Args:
        word_count, visited, read: per-document counts (arrays of equal
            length), e.g. `structural_jump_statistics(...)["counts"]`.
        units, embedding_dim, agent_units: the model's m, d and a.

    Returns:
        dict with `flop_r` (corpus level), `flop_r_per_document_mean`
        (documents without words left out), `full_flops` and `sj_flops`
        (corpus totals), `documents` and the `step_flops`.
    """
    n = np.asarray(word_count, dtype=np.float64).reshape(-1)
    v = np.asarray(visited, dtype=np.float64).reshape(-1)
    r = np.asarray(read, dtype=np.float64).reshape(-1)
    if not (n.shape == v.shape == r.shape):
        raise ValueError(
            f"word_count, visited and read must have one entry per document; got {n.shape}, {v.shape}, {r.shape}"
        )
    if np.any(r > v) or np.any(v > n) or np.any(r < 0):
        raise ValueError("counts must satisfy 0 <= read <= visited <= word_count for every document")
    step = structural_jump_step_flops(units, embedding_dim, agent_units)
    full = n * step["baseline_lstm"]
    sj = v * step["skip_agent"] + r * step["read_step"]
    keep = sj > 0
    return {
        "flop_r": float(full.sum() / sj.sum()) if sj.sum() else float("nan"),
        "flop_r_per_document_mean": float(np.mean(full[keep] / sj[keep])) if keep.any() else float("nan"),
        "full_flops": float(full.sum()),
        "sj_flops": float(sj.sum()),
        "documents": int(n.size),
        "step_flops": step,
    }
