"""`ModelPlan`: what the exporter reads out of a Keras model, whatever its family.

Its own module so that the generic planner (`model_plan`) and a family's own
planner (registered in `model_planners`) both build it without importing
each other.
"""

import dataclasses

import numpy as np

from keras_skim.export.errors import ExportError
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
