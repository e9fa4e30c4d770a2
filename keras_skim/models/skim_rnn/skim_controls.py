"""Find the skim cells of a model and set their inference threshold."""

from __future__ import annotations

import contextlib
from typing import Any

import keras

from keras_skim.models.skim_rnn.skim_cell_base import SkimCellBase, _check_float


def skim_cells(model: Any) -> list[Any]:
    """Returns every skim cell inside `model`, in layer order.

    Looks through `keras.layers.RNN`, `Bidirectional`, stacked cells and
    nested models.
    """
    found = []
    seen = set()

    def visit(obj):
        if id(obj) in seen:
            return
        seen.add(id(obj))
        if isinstance(obj, SkimCellBase):
            found.append(obj)
            return
        for attr in ("cell", "forward_layer", "backward_layer", "layer"):
            child = getattr(obj, attr, None)
            if isinstance(child, keras.layers.Layer):
                visit(child)
        for child in getattr(obj, "cells", None) or []:
            visit(child)
        for child in getattr(obj, "layers", None) or []:
            visit(child)

    visit(model)
    return found


def set_threshold(model: Any, threshold: float, layer_name: str | None = None) -> list[Any]:
    """Sets the inference threshold of the skim cells of `model`.

    Takes effect at once, without retraining or retracing: the threshold is
    a non-trainable variable of each cell.

    Args:
        model: a Keras model or layer.
        threshold: float >= 0. Read iff p_read >= threshold.
        layer_name: only the cells of the layer with this name (an `RNN` or
            `Bidirectional` layer); all cells when None.

    Returns:
        The list of cells that were changed.
    """
    _check_float("threshold", threshold, minimum=0.0)
    if layer_name is None:
        cells = skim_cells(model)
    else:
        try:
            layer = model.get_layer(layer_name)
        except ValueError:
            names = [layer.name for layer in model.layers]
            raise ValueError(f"No layer named {layer_name!r} in the model; layers are {names}") from None
        cells = skim_cells(layer)
    if not cells:
        raise ValueError("The model has no keras-skim skim cell to set a threshold on.")
    for cell in cells:
        cell.threshold = threshold
    return cells


@contextlib.contextmanager
def thresholds_set_to(cells, threshold):
    """Temporarily sets the threshold of `cells` (no change when None);
    restores each cell's own threshold afterwards, also on errors."""
    saved = [cell.threshold for cell in cells]
    try:
        if threshold is not None:
            for cell in cells:
                cell.threshold = threshold
        yield
    finally:
        for cell, value in zip(cells, saved):
            cell.threshold = value
