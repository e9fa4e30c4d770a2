"""Reads a Keras text classifier into what the exporter needs: the
embedding matrix, the one recurrent cell (with its emitter) and the dense
head. Layers that are identities at inference (Dropout, ...) are skipped.
A model family that is more than one cell in a text classifier plans
itself: it registers a planner in `model_planners`, and this module asks
that registry first, without naming any family.
"""

import numpy as np

from keras_skim.contracts import PADDING_ID
from keras_skim.export.emitter_registry import emitter_for, known_cells
from keras_skim.export.errors import WHAT_EXPORT_TAKES, ExportError
from keras_skim.export.model_planners import planner_for, refusal_for
from keras_skim.export.plan import ModelPlan
from keras_skim.export.weights import activation_name, to_numpy

_INFERENCE_IDENTITY = (
    "Dropout",
    "SpatialDropout1D",
    "GaussianDropout",
    "GaussianNoise",
    "AlphaDropout",
    "ActivityRegularization",
)
HIDDEN_ACTIVATIONS = ("linear", "relu", "tanh", "sigmoid")
OUTPUT_ACTIVATIONS = ("linear", "sigmoid", "softmax")


def plan_model(model):
    """Returns the `ModelPlan` of `model`, or raises a one-line ExportError."""
    import keras

    planner = planner_for(model)
    if planner is not None:
        return planner(model)
    layers = [layer for layer in model.layers if not isinstance(layer, keras.layers.InputLayer)]
    if len(model.inputs) != 1:
        raise ExportError(f"the model has {len(model.inputs)} inputs; the exporter takes one input of token ids")
    embedding = None
    embedding_layer = None
    rnn = None
    head = []
    for layer in layers:
        kind = type(layer).__name__
        if kind in _INFERENCE_IDENTITY:
            continue
        if isinstance(layer, keras.layers.Embedding):
            if embedding is not None or rnn is not None:
                raise ExportError(f"unsupported layer {layer.name!r} (a second Embedding)")
            embedding = to_numpy(layer.embeddings)
            embedding_layer = layer
            continue
        if isinstance(layer, keras.layers.Bidirectional):
            raise ExportError(
                f"unsupported layer {layer.name!r} (Bidirectional): the exporter runs one forward recurrent layer"
            )
        if isinstance(layer, keras.layers.RNN):
            if embedding is None:
                raise ExportError(
                    f"the recurrent layer {layer.name!r} must follow an Embedding layer: {WHAT_EXPORT_TAKES}"
                )
            if rnn is not None:
                raise ExportError(
                    f"unsupported layer {layer.name!r} (a second recurrent layer): stacked RNNs are not exported yet"
                )
            _check_rnn(layer)
            refusal = refusal_for(layer.cell)
            if refusal is not None:
                raise ExportError(f"layer {layer.name!r}: {refusal}")
            rnn = layer
            continue
        if isinstance(layer, keras.layers.Dense):
            if rnn is None:
                raise ExportError(f"unsupported layer {layer.name!r} (Dense before the recurrent layer)")
            kernel = to_numpy(layer.kernel)
            bias = to_numpy(layer.bias) if layer.use_bias else np.zeros(kernel.shape[1])
            head.append((kernel, bias, activation_name(layer.activation)))
            continue
        raise ExportError(f"unsupported layer {layer.name!r} ({kind}): {WHAT_EXPORT_TAKES}")
    if embedding is None:
        raise ExportError(f"the model has no Embedding layer: {WHAT_EXPORT_TAKES}")
    if rnn is None:
        raise ExportError(f"the model has no recurrent layer: {WHAT_EXPORT_TAKES}")
    if not head:
        raise ExportError("the model has no Dense layer after its recurrent layer")
    for _kernel, _, act in head[:-1]:
        if act not in HIDDEN_ACTIVATIONS:
            raise ExportError(f"unsupported hidden Dense activation {act!r}")
    output_activation = head[-1][2]
    if output_activation not in OUTPUT_ACTIVATIONS:
        raise ExportError(f"unsupported output activation {output_activation!r} (expected one of {OUTPUT_ACTIVATIONS})")
    emitter = emitter_for(rnn.cell)
    if emitter is None:
        raise ExportError(
            f"unsupported layer {rnn.name!r}: no exporter for cell {type(rnn.cell).__name__} "
            f"(known: {', '.join(known_cells())})"
        )
    emitter.check()
    if emitter.input_dim != embedding.shape[1]:
        raise ExportError(f"layer {rnn.name!r} input size does not match the embedding")
    padding_id = PADDING_ID if embedding_layer.mask_zero else None
    return ModelPlan(embedding, emitter, rnn.name, head, output_activation, padding_id, embedding_layer, rnn)


def _check_rnn(layer):
    if getattr(layer, "return_sequences", False):
        raise ExportError(
            f"unsupported layer {layer.name!r}: return_sequences=True (stacked RNNs are not exported yet)"
        )
    if getattr(layer, "go_backwards", False):
        raise ExportError(f"unsupported layer {layer.name!r}: go_backwards=True")
    if getattr(layer, "return_state", False):
        raise ExportError(f"unsupported layer {layer.name!r}: return_state=True")
    if hasattr(layer.cell, "cells"):
        raise ExportError(f"unsupported layer {layer.name!r}: stacked cells are not exported yet")
