"""`Classification`: what `SkimRunner.classify` gives for one text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from keras_skim.model_kinds import TOKEN_SKIMMED


class Classification(tuple):
    """(probabilities, read_mask, tokens) of one text, with the names of
    its classes: unpacks as the three-tuple `classify` always gave, and
    `label` is the predicted class's name (the training data's, recorded
    in the export's metadata; "class i" for an export without them).

    Attributes:
        probabilities: float array, one per class (a single sigmoid logit
            gives two).
        read_mask: int array, per token a `keras_skim.contracts.TOKEN_*` code
            (layer 0's forward direction in a stacked export).
        read_masks: {(layer index, direction): int array} of every layer and
            direction (one entry, (0, "forward"), for a single-layer export).
        tokens: the tokens of the text the model saw.
        class_names: the name of every class.
        predicted: index of the most likely class.
        label: its name.
    """

    class_names: list[str]
    read_masks: dict[tuple[int, str], np.ndarray]

    def __new__(
        cls,
        probabilities: np.ndarray,
        read_mask: np.ndarray,
        tokens: list[str],
        metadata: Any,
        read_masks: Mapping[tuple[int, str], np.ndarray] | None = None,
    ) -> Classification:
        self = super().__new__(cls, (probabilities, read_mask, tokens))
        self.class_names = [metadata.class_name(i) for i in range(len(probabilities))]
        self.read_masks = dict(read_masks) if read_masks else {(0, "forward"): read_mask}
        return self

    def skim_rates(self) -> dict[tuple[int, str], float]:
        """{(layer index, direction): share of the tokens skimmed} of every read
        mask (`TOKEN_SKIMMED`; a plain layer skims none)."""
        return {
            where: float(np.mean(mask == TOKEN_SKIMMED)) if len(mask) else 0.0
            for where, mask in self.read_masks.items()
        }

    probabilities = property(lambda self: self[0])
    read_mask = property(lambda self: self[1])
    tokens = property(lambda self: self[2])

    @property
    def predicted(self) -> int:
        return int(np.argmax(self.probabilities))

    @property
    def label(self) -> str:
        return self.class_names[self.predicted]
