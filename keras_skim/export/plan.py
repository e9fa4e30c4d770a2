"""The model plan: what the exporter reads out of a Keras model, whatever
its family, read once per export (`plan_model`) and handed to everything
that builds from it (both backends, the metadata and its FLOP counts, the
parity check).

`ModelPlan` holds the embedding matrix, the recurrent layers (a stack of
`RNN` / `Bidirectional(RNN)` layers, every one but the last with
return_sequences=True; an emitter per cell and direction) and the dense
head. `plan_model` is the text classifier's planner, after the planner
dispatch: a model family that is more than one cell in a text classifier
(a model class with its own input layers and agents), and the text
classifier's float-sequence form, plan themselves, listed by their family
exporter's `planners()` (`keras_skim.export.family_exporter`), so this
module names no family. Layers that are identities at inference (Dropout,
...) are skipped.
"""

import dataclasses

import numpy as np

from keras_skim.contracts import PADDING_ID
from keras_skim.export.emitter_registry import checked_emitter
from keras_skim.export.errors import WHAT_EXPORT_TAKES, ExportError
from keras_skim.export.family_exporter import family_exporters
from keras_skim.export.weights import activation_name, to_numpy
from keras_skim.metadata_record import read_mask_name

# Layers that are identities at inference, between the input and the
# recurrent layers or before the head: every planner skips them.
INFERENCE_IDENTITY_LAYERS = (
    "Dropout",
    "SpatialDropout1D",
    "GaussianDropout",
    "GaussianNoise",
    "AlphaDropout",
    "ActivityRegularization",
)
# The activations an export computes: hidden Dense layers, the output layer.
HIDDEN_ACTIVATIONS = ("linear", "relu", "tanh", "sigmoid")
OUTPUT_ACTIVATIONS = ("linear", "sigmoid", "softmax")


def checked_output_activation(head):
    """The output activation of a Dense `head` [(kernel, bias, activation)],
    every activation checked against what an export computes (ExportError)."""
    for _kernel, _, activation in head[:-1]:
        if activation not in HIDDEN_ACTIVATIONS:
            raise ExportError(f"unsupported hidden Dense activation {activation!r}")
    output_activation = head[-1][2]
    if output_activation not in OUTPUT_ACTIVATIONS:
        raise ExportError(f"unsupported output activation {output_activation!r} (expected one of {OUTPUT_ACTIVATIONS})")
    return output_activation


@dataclasses.dataclass
class ModelPlan:
    embedding: np.ndarray  # [V, e], float64
    emitter: object  # a CellEmitter
    rnn_layer_name: str
    head: list  # [(kernel, bias, activation)], the last activation not applied in the graph
    output_activation: str
    # contracts.PADDING_ID when the Embedding masks it (mask_zero), else None:
    # then id 0 is an ordinary token, as it is in Keras.
    padding_id: int = None
    embedding_layer: object = None
    rnn_layer: object = None
    # A jump model's punctuation ids (separator_ids, sentence_end_ids,
    # other_punctuation_ids); None for the per-token models.
    structure: dict = None
    # Every recurrent layer, input first (`RecurrentLayerPlan`); None for a
    # family that plans itself. One forward layer is the single-layer export.
    layers: list = None

    @property
    def stacked(self):
        """More than one recurrent layer, or a Bidirectional one: the stack graph."""
        return bool(self.layers) and (len(self.layers) > 1 or self.layers[0].bidirectional)

    def read_mask_outputs(self):
        """[(layer index, direction, output name)] of every read mask, `read_mask` first."""
        return [
            (index, direction, read_mask_name(index, direction))
            for index, layer in enumerate(self.layers or ())
            for direction in layer.directions
        ]

    def flop_directions(self):
        """[(emitter, input size)] of every recurrent direction, input first,
        forward before backward (`keras_skim.analysis.flops.plan_flop_report`
        counts them); a plan without `layers` is its one cell."""
        if not self.layers:
            return [(self.emitter, self.embedding_dim)]
        dims = [self.embedding_dim] + [layer.output_dim for layer in self.layers[:-1]]
        return [(emitter, dim) for layer, dim in zip(self.layers, dims) for emitter in layer.emitters]

    @property
    def vocabulary_size(self):
        return int(self.embedding.shape[0])

    @property
    def embedding_dim(self):
        return int(self.embedding.shape[1])

    @property
    def num_classes(self):
        return int(self.head[-1][0].shape[1])

    @property
    def model_kind(self):
        return self.emitter.model_kind

    @property
    def jumps(self):
        """Whether the model jumps (`ModelKind.jumps`): its mask has four codes."""
        return bool(getattr(self.emitter, "jumps", False))


@dataclasses.dataclass
class RecurrentLayerPlan:
    """One `RNN` or `Bidirectional(RNN)` layer of a stack."""

    name: str
    emitters: list  # [forward] or [forward, backward]: a CellEmitter per direction
    return_sequences: bool
    merge_mode: str = None  # a Bidirectional's merge of its two outputs ("concat", "sum", "ave", "mul")
    layer: object = None

    @property
    def bidirectional(self):
        return len(self.emitters) == 2

    @property
    def directions(self):
        return ("forward", "backward")[: len(self.emitters)]

    @property
    def output_dim(self):
        units = self.emitters[0].units
        return 2 * units if self.merge_mode == "concat" else units


# ------------------------------------------------------------------ planning
def planner_for(model):
    """The planner of the family (or form) `model` belongs to, or None (a plain text classifier)."""
    for exporter in family_exporters():
        for recognise, plan in exporter.planners():
            if recognise(model):
                return plan
    return None


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
    recurrent = []  # RecurrentLayerPlan, input first
    head = []
    for layer in layers:
        kind = type(layer).__name__
        if kind in INFERENCE_IDENTITY_LAYERS:
            continue
        if isinstance(layer, keras.layers.Embedding):
            if embedding is not None or recurrent:
                raise ExportError(f"unsupported layer {layer.name!r} (a second Embedding)")
            embedding = to_numpy(layer.embeddings)
            embedding_layer = layer
            continue
        if isinstance(layer, (keras.layers.RNN, keras.layers.Bidirectional)):
            if embedding is None:
                raise ExportError(
                    f"the recurrent layer {layer.name!r} must follow an Embedding layer: {WHAT_EXPORT_TAKES}"
                )
            if head:
                raise ExportError(f"unsupported layer {layer.name!r} (a recurrent layer after a Dense layer)")
            if recurrent and not recurrent[-1].return_sequences:
                raise ExportError(
                    f"unsupported layer {layer.name!r}: the recurrent layer before it, {recurrent[-1].name!r}, "
                    "gives only its last output (stack recurrent layers with return_sequences=True)"
                )
            recurrent.append(_plan_recurrent(layer))
            continue
        if isinstance(layer, keras.layers.Dense):
            if not recurrent:
                raise ExportError(f"unsupported layer {layer.name!r} (Dense before the recurrent layer)")
            if recurrent[-1].return_sequences:
                raise ExportError(
                    f"unsupported layer {recurrent[-1].name!r}: return_sequences=True on the last recurrent "
                    "layer (the exporter classifies from its last output)"
                )
            kernel = to_numpy(layer.kernel)
            bias = to_numpy(layer.bias) if layer.use_bias else np.zeros(kernel.shape[1])
            head.append((kernel, bias, activation_name(layer.activation)))
            continue
        raise ExportError(f"unsupported layer {layer.name!r} ({kind}): {WHAT_EXPORT_TAKES}")
    if embedding is None:
        raise ExportError(f"the model has no Embedding layer: {WHAT_EXPORT_TAKES}")
    if not recurrent:
        raise ExportError(f"the model has no recurrent layer: {WHAT_EXPORT_TAKES}")
    if not head:
        raise ExportError("the model has no Dense layer after its recurrent layer")
    output_activation = checked_output_activation(head)
    input_dim = embedding.shape[1]
    for planned in recurrent:
        for emitter in planned.emitters:
            if emitter.input_dim != input_dim:
                what = "the embedding" if planned is recurrent[0] else "the output of the layer before it"
                raise ExportError(f"layer {planned.name!r} input size does not match {what}")
        input_dim = planned.output_dim
    _check_thresholds(recurrent)
    # The layer whose kind the export carries: the first that skims, else the first.
    first = next((p for p in recurrent if p.emitters[0].skims), recurrent[0])
    emitter = first.emitters[0]
    rnn = recurrent[0].layer
    padding_id = PADDING_ID if embedding_layer.mask_zero else None
    return ModelPlan(
        embedding, emitter, rnn.name, head, output_activation, padding_id, embedding_layer, rnn, layers=recurrent
    )


_MERGE_MODES = ("concat", "sum", "ave", "mul")


def _plan_recurrent(layer):
    """The `RecurrentLayerPlan` of an `RNN` or a `Bidirectional(RNN)` layer."""
    import keras

    if not isinstance(layer, keras.layers.Bidirectional):
        _check_rnn(layer)
        return RecurrentLayerPlan(layer.name, [_emitter(layer)], bool(layer.return_sequences), layer=layer)
    if getattr(layer, "return_state", False):
        raise ExportError(f"unsupported layer {layer.name!r}: return_state=True")
    if layer.merge_mode not in _MERGE_MODES:
        raise ExportError(
            f"unsupported layer {layer.name!r}: merge_mode={layer.merge_mode!r} (expected one of {_MERGE_MODES})"
        )
    forward, backward = layer.forward_layer, layer.backward_layer
    for rnn, backwards in ((forward, False), (backward, True)):
        if not isinstance(rnn, keras.layers.RNN):
            raise ExportError(f"unsupported layer {layer.name!r}: it wraps {type(rnn).__name__}, not an RNN layer")
        if bool(getattr(rnn, "go_backwards", False)) != backwards:
            raise ExportError(f"unsupported layer {layer.name!r}: a direction with go_backwards={not backwards}")
        _check_rnn(rnn, directions_checked=True)
    return RecurrentLayerPlan(
        layer.name,
        [_emitter(forward, layer.name), _emitter(backward, layer.name)],
        bool(layer.return_sequences),
        merge_mode=layer.merge_mode,
        layer=layer,
    )


def _emitter(rnn, name=None):
    """The checked emitter of the cell of `rnn` (`name`: the layer the user named)."""
    return checked_emitter(rnn.cell, name or rnn.name)


def _check_thresholds(recurrent):
    """The export has one `threshold` input for every skim cell: they must agree."""
    values = {e.default_threshold for p in recurrent for e in p.emitters if e.skims}
    if len(values) > 1:
        raise ExportError(
            f"the skim cells have different thresholds ({', '.join(f'{v:g}' for v in sorted(values))}); the export "
            "takes one threshold for all of them: set one with keras_skim.set_threshold before saving"
        )


def _check_rnn(layer, directions_checked=False):
    if getattr(layer, "go_backwards", False) and not directions_checked:
        raise ExportError(f"unsupported layer {layer.name!r}: go_backwards=True")
    if getattr(layer, "return_state", False):
        raise ExportError(f"unsupported layer {layer.name!r}: return_state=True")
    if hasattr(layer.cell, "cells"):
        raise ExportError(f"unsupported layer {layer.name!r}: stacked cells are not exported yet")
