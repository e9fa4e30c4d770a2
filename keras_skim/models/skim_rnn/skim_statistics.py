"""Exact skim statistics of a trained model: the skim rate over real tokens
and the per-token read/skim decisions (for `keras-skim show`)."""

from __future__ import annotations

import weakref
from typing import Any

import keras
import numpy as np
from numpy.typing import ArrayLike

from keras_skim.models.skim_rnn.skim_cell_base import (
    NUM_STATS,
    STAT_PENDING,
    STAT_SKIMS,
    STAT_TOKENS,
    SkimCellBase,
)
from keras_skim.models.skim_rnn.skim_controls import skim_cells, thresholds_set_to
from keras_skim.training.progress_batches import in_batches


def skim_statistics(
    model: Any, token_ids: ArrayLike, batch_size: int = 64, threshold: float | None = None, progress: bool | None = None
) -> dict[str, Any]:
    """Runs `model` on token ids and returns its exact skim rate.

    Each skim layer is re-run on the inputs that reach it with
    `return_state=True` (sharing the trained cell), and the counts are read
    from the cell's bookkeeping state, which Keras' mask keeps exact: only
    real tokens count (the `skim_rate` metric of the fit logs counts the same
    way, over the batches it saw). The probe is one compiled Keras function
    per model, kept for the model's lifetime: the threshold is a variable, so
    a threshold sweep reuses it without retracing.

    Args:
        model: a functional or Sequential Keras model with skim cells whose
            first input takes token ids, padding id 0.
        token_ids: int array `(N, T)`, padded with 0.
        batch_size: inference batch size.
        threshold: if given, the threshold to evaluate at (restored after).
        progress: show a progress bar on stderr (None: when stderr is a
            terminal).

    Returns:
        dict with `skim_rate` (all skim cells, token weighted), `tokens`
        (real tokens seen by all cells), `skimmed`, and `layers`: one entry
        per cell with its name, `skim_rate`, `skimmed` and `tokens`.
    """
    return skim_predictions(model, token_ids, batch_size, threshold, progress, logits=False)[1]


def skim_predictions(model, token_ids, batch_size=64, threshold=None, progress=None, logits=True):
    """`(logits, skim_statistics)` of `model` on token ids, in one compiled
    pass (logits None with `logits=False`); arguments as `skim_statistics`."""
    cells = skim_cells(model)
    if not cells:
        raise ValueError("The model has no keras-skim skim cell.")
    token_ids = np.asarray(token_ids)
    if token_ids.ndim != 2 or not np.issubdtype(token_ids.dtype, np.integer):
        raise ValueError(f"token_ids must be an integer array (N, T); got {token_ids.dtype} {token_ids.shape}")
    probe, probed_cells = _probe_model(model, logits)
    counts = {id(cell): [0.0, 0.0] for cell in cells}
    outputs = []
    with thresholds_set_to(cells, threshold):
        for batch in in_batches(token_ids, batch_size, progress, "evaluating" if logits else "skim statistics"):
            values = probe.predict_on_batch(batch)
            values = list(values) if isinstance(values, (list, tuple)) else [values]  # one output: no list
            if logits:
                outputs.append(np.asarray(values[0]))
                values = values[1:]
            for cell, stats in zip(probed_cells, values):
                stats = np.asarray(stats)
                counts[id(cell)][0] += float(stats[:, STAT_SKIMS].sum())
                counts[id(cell)][1] += float(stats[:, STAT_TOKENS].sum())
    layers = [
        {
            "name": cell.name,
            "skim_rate": counts[id(cell)][0] / counts[id(cell)][1] if counts[id(cell)][1] else 0.0,
            "skimmed": counts[id(cell)][0],
            "tokens": counts[id(cell)][1],
        }
        for cell in cells
    ]
    tokens = sum(layer["tokens"] for layer in layers)
    skimmed = sum(layer["skimmed"] for layer in layers)
    stats = {
        "skim_rate": skimmed / tokens if tokens else 0.0,
        "skimmed": skimmed,
        "tokens": tokens,
        "layers": layers,
    }
    if not logits:
        return None, stats
    return (np.concatenate(outputs) if outputs else np.zeros((0,) + tuple(model.outputs[0].shape[1:]))), stats


# model -> {with logits: (probe model, cells in output order)}; dies with the model.
_PROBES: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def _probe_model(model, logits):
    """One Keras model computing, for each top-level layer holding skim
    cells, the final bookkeeping state of `return_state` twins of its RNN
    layers that share the trained cells (and first the model's logits, with
    `logits`); compiled by Keras at its first `predict_on_batch`."""
    cached = _PROBES.setdefault(model, {})
    if logits in cached:
        return cached[logits]
    ids = model.inputs[0]
    # The same mask as the model's: id 0 is padding (contracts.PADDING_ID).
    mask = keras.ops.not_equal(ids, 0)
    outputs, cells = [], []
    for layer, rnn in _checked_skim_rnns(model):
        # Named after the layer: an automatic name ("rnn_1") can be one of the model's own
        # in a freshly loaded model, and a functional model refuses a name used twice.
        twin = keras.layers.RNN(
            rnn.cell, return_state=True, go_backwards=rnn.go_backwards, name=f"{layer.name}_{rnn.name}_probe"
        )
        outputs.append(twin(_first(layer.input), mask=mask, training=False)[-1])
        cells.append(rnn.cell)
    if logits:
        outputs = [model.outputs[0]] + outputs
    cached[logits] = (keras.Model(model.inputs, outputs), cells)
    return cached[logits]


def read_decisions(model, token_ids, threshold=None):
    """Per-token decisions of the first skim layer: 1 = read, 0 = skimmed.

    Runs the first skim cell step by step on the inputs that reach its
    `RNN` layer (the forward direction of a `Bidirectional` layer).

    Args:
        model: a functional or Sequential Keras model with a skim layer.
        token_ids: int array `(T,)` of one text, without padding.
        threshold: the threshold to decide at; the cell's own by default.

    Returns:
        int array `(T,)`.
    """
    return direction_decisions(model, token_ids, threshold, first_only=True)[0]


def direction_decisions(model, token_ids, threshold=None, first_only=False):
    """Per-token decisions (1 = read, 0 = skimmed) of every skim layer and
    direction, in `skim_statistics`' `layers` order (layer by layer, forward
    before backward); each in token order, a backward direction's too.

    Each cell runs step by step on the inputs that reach its layer (the
    earlier layers' outputs, as Keras computes them); a backward direction
    reads the text from its last token, as Keras runs it (the mask puts the
    padding before the text, and a masked step keeps the state).

    Args:
        model: a functional or Sequential Keras model with skim cells in
            top-level `RNN` or `Bidirectional` layers.
        token_ids: int array `(T,)` of one text, without padding.
        threshold: the threshold to decide at; the cells' own by default.
        first_only: stop after the first skim direction.

    Returns:
        list of int arrays `(T,)`.
    """
    rnns = _checked_skim_rnns(model)
    token_ids = np.asarray(token_ids, dtype=np.int32)
    length = model.inputs[0].shape[1] or len(token_ids)
    padded = np.zeros((1, max(length, len(token_ids))), np.int32)
    padded[0, : len(token_ids)] = token_ids
    found, inputs = [], {}  # a Bidirectional layer's two directions read the same inputs: computed once
    for layer, rnn in rnns[:1] if first_only else rnns:
        if id(layer) not in inputs:
            feature_model = keras.Model(model.inputs, _first(layer.input))
            inputs[id(layer)] = np.asarray(feature_model([padded]))[:, : len(token_ids)]
        features = inputs[id(layer)]
        if rnn.go_backwards:
            features = features[:, ::-1]
        decisions = _step_decisions(rnn.cell, features, threshold)
        found.append(decisions[::-1].copy() if rnn.go_backwards else decisions)
    return found


def _step_decisions(cell, features, threshold):
    """The read (1) / skim (0) decision of `cell` at each step of `features`
    `(1, T, F)`, from a zero state."""
    with thresholds_set_to([cell], threshold):
        states = cell.get_initial_state(batch_size=1)
        decisions = []
        for t in range(features.shape[1]):
            _, states = cell(features[:, t, :], states, training=False)
            stats = np.asarray(states[-1])
            assert stats.shape[-1] == NUM_STATS
            decisions.append(int(stats[0, STAT_PENDING] < 0.5))
    return np.asarray(decisions, dtype=np.int32)


def _checked_skim_rnns(model):
    """`_skim_rnns(model)`, which must hold every skim cell of the model."""
    rnns = _skim_rnns(model)
    if not rnns or len(rnns) != len(skim_cells(model)):
        raise ValueError("skim_statistics supports skim cells in top-level RNN or Bidirectional layers.")
    return rnns


def _skim_rnns(model):
    """[(top-level layer, RNN)] of every skim direction, layer by layer,
    forward before backward (a `Bidirectional` layer holds two RNNs)."""
    found = []
    for layer in model.layers:
        rnns = [layer.forward_layer, layer.backward_layer] if hasattr(layer, "forward_layer") else [layer]
        found += [(layer, rnn) for rnn in rnns if isinstance(getattr(rnn, "cell", None), SkimCellBase)]
    return found


def _first(tensors):
    # A layer called with a mask records [inputs, mask] as its input.
    return tensors[0] if isinstance(tensors, (list, tuple)) else tensors
