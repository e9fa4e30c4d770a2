"""Exact skim statistics of a trained model: the skim rate over real tokens
and the per-token read/skim decisions (for `keras-skim show`)."""

import keras
import numpy as np

from keras_skim.layers.skim_cell_base import (
    NUM_STATS,
    STAT_PENDING,
    STAT_SKIMS,
    STAT_TOKENS,
    SkimCellBase,
)
from keras_skim.layers.skim_controls import skim_cells, thresholds_set_to


def skim_statistics(model, token_ids, batch_size=64, threshold=None):
    """Runs `model` on token ids and returns its exact skim rate.

    Each skim layer is re-run on the inputs that reach it with
    `return_state=True` (sharing the trained cell), and the counts are read
    from the cell's bookkeeping state, which Keras' mask keeps exact: only
    real tokens count (the `skim_rate` metric of the fit logs counts the same
    way, over the batches it saw).

    Args:
        model: a functional or Sequential Keras model with skim cells whose
            first input takes token ids, padding id 0.
        token_ids: int array `(N, T)`, padded with 0.
        batch_size: inference batch size.
        threshold: if given, the threshold to evaluate at (restored after).

    Returns:
        dict with `skim_rate` (all skim cells, token weighted), `tokens`
        (real tokens seen by all cells), `skimmed`, and `layers`: one entry
        per cell with its name, `skim_rate`, `skimmed` and `tokens`.
    """
    cells = skim_cells(model)
    if not cells:
        raise ValueError("The model has no keras-skim skim cell.")
    token_ids = np.asarray(token_ids)
    if token_ids.ndim != 2 or not np.issubdtype(token_ids.dtype, np.integer):
        raise ValueError(f"token_ids must be an integer array (N, T); got {token_ids.dtype} {token_ids.shape}")
    probes = _state_probes(model)
    counts = {id(cell): [0.0, 0.0] for cell in cells}
    with thresholds_set_to(cells, threshold):
        for start in range(0, len(token_ids), batch_size):
            batch = token_ids[start : start + batch_size]
            mask = batch != 0
            for feature_model, rnn_probes in probes:
                features = feature_model([batch], training=False)
                for cell, probe in rnn_probes:
                    stats = np.asarray(probe(features, mask=mask, training=False)[-1])
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
    return {
        "skim_rate": skimmed / tokens if tokens else 0.0,
        "skimmed": skimmed,
        "tokens": tokens,
        "layers": layers,
    }


def _state_probes(model):
    """For each top-level layer holding skim cells: a model computing that
    layer's input, and `return_state` twins of its RNN layers that share the
    trained cells."""
    probes = []
    for layer in model.layers:
        rnns = [layer.forward_layer, layer.backward_layer] if hasattr(layer, "forward_layer") else [layer]
        pairs = []
        for rnn in rnns:
            cell = getattr(rnn, "cell", None)
            if isinstance(cell, SkimCellBase):
                twin = keras.layers.RNN(cell, return_state=True, go_backwards=rnn.go_backwards)
                pairs.append((cell, twin))
        if pairs:
            probes.append((keras.Model(model.inputs, _first(layer.input)), pairs))
    if len(probes) == 0 or sum(len(p) for _, p in probes) != len(skim_cells(model)):
        raise ValueError("skim_statistics supports skim cells in top-level RNN or Bidirectional layers.")
    return probes


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
    cells = skim_cells(model)
    if not cells:
        raise ValueError("The model has no keras-skim skim cell.")
    cell = cells[0]
    rnn_layer = _layer_holding(model, cell)
    feature_model = keras.Model(model.inputs, _first(rnn_layer.input))
    token_ids = np.asarray(token_ids, dtype=np.int32)
    length = model.inputs[0].shape[1] or len(token_ids)
    padded = np.zeros((1, max(length, len(token_ids))), np.int32)
    padded[0, : len(token_ids)] = token_ids
    features = np.asarray(feature_model([padded]))[:, : len(token_ids)]
    with thresholds_set_to([cell], threshold):
        states = cell.get_initial_state(batch_size=1)
        decisions = []
        for t in range(features.shape[1]):
            _, states = cell(features[:, t, :], states, training=False)
            stats = np.asarray(states[-1])
            assert stats.shape[-1] == NUM_STATS
            decisions.append(int(stats[0, STAT_PENDING] < 0.5))
    return np.asarray(decisions, dtype=np.int32)


def _first(tensors):
    # A layer called with a mask records [inputs, mask] as its input.
    return tensors[0] if isinstance(tensors, (list, tuple)) else tensors


def _layer_holding(model, cell):
    for layer in model.layers:
        if cell in skim_cells(layer):
            return layer
    raise ValueError("Could not find the layer that holds the skim cell.")
