"""`ModelPlan`: what the exporter reads out of a Keras model, whatever its family.

Its own module so that the generic planner (`model_plan`) and a family's own
planner (registered in `model_planners`) both build it without importing
each other.
"""

import dataclasses

import numpy as np


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
        """Whether the model jumps (Structural-Jump-LSTM): its mask has four codes."""
        return bool(getattr(self.emitter, "jumps", False))
