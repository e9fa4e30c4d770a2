"""Exact skim statistics of a trained model: the skim rate over real tokens
and the per-token read/skim decisions (for `keras-skim show`)."""
import keras
import numpy as np

from keras_skim.layers.skim_cell_base import NUM_STATS, STAT_PENDING
from keras_skim.training.skim_controls import skim_cells


def skim_statistics(model, token_ids, batch_size=64, threshold=None):
    """Runs `model` on token ids and returns its skim rate over real tokens.

    A padding column is appended so that the `skim_rate` metric, which sees
    a step's mask one step late, also counts each sequence's last token.

    Args:
        model: a Keras model with skim cells whose first input takes token
            ids, padding id 0 masked (`Embedding(mask_zero=True)`).
        token_ids: int array `(N, T)`, right-padded with 0.
        batch_size: inference batch size.
        threshold: if given, the threshold to evaluate at (restored after).

    Returns:
        dict with `skim_rate` (all skim cells, token weighted), `tokens`
        (real tokens seen by all cells), and `layers`: one entry per cell
        with its name, `skim_rate` and `tokens`.
    """
    cells = skim_cells(model)
    if not cells:
        raise ValueError("The model has no keras-skim skim cell.")
    token_ids = np.asarray(token_ids)
    if token_ids.ndim != 2 or not np.issubdtype(token_ids.dtype, np.integer):
        raise ValueError(
            f"token_ids must be an integer array (N, T); got {token_ids.dtype} {token_ids.shape}"
        )
    padded = np.concatenate([token_ids, np.zeros((len(token_ids), 1), token_ids.dtype)], axis=1)
    saved = [cell.threshold for cell in cells]
    try:
        if threshold is not None:
            for cell in cells:
                cell.threshold = threshold
        for cell in cells:
            cell.skim_rate.reset_state()
        model.predict(padded, batch_size=batch_size, verbose=0)
        layers = [
            {
                "name": cell.name,
                "skim_rate": float(cell.skim_rate.result()),
                "skimmed": float(cell.skim_rate.skimmed.numpy()),
                "tokens": float(cell.skim_rate.tokens.numpy()),
            }
            for cell in cells
        ]
    finally:
        for cell, value in zip(cells, saved):
            cell.threshold = value
    tokens = sum(layer["tokens"] for layer in layers)
    skimmed = sum(layer["skimmed"] for layer in layers)
    return {
        "skim_rate": skimmed / tokens if tokens else 0.0,
        "tokens": tokens,
        "layers": layers,
    }


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
    feature_model = keras.Model(model.inputs, rnn_layer.input)
    features = np.asarray(feature_model(np.asarray(token_ids)[None, :]))
    saved = cell.threshold
    try:
        if threshold is not None:
            cell.threshold = threshold
        states = cell.get_initial_state(batch_size=1)
        decisions = []
        for t in range(features.shape[1]):
            _, states = cell(features[:, t, :], states, training=False)
            stats = np.asarray(states[-1])
            assert stats.shape[-1] == NUM_STATS
            decisions.append(int(stats[0, STAT_PENDING] < 0.5))
    finally:
        cell.threshold = saved
    return np.asarray(decisions, dtype=np.int32)


def _layer_holding(model, cell):
    for layer in model.layers:
        if cell in skim_cells(layer):
            return layer
    raise ValueError("Could not find the layer that holds the skim cell.")
