"""One bidirectional reading layer of a span reader, of any `--cell` kind."""

import keras
from keras import ops

from keras_skim.model_kinds import cli_kind, load, skim_gate, text_classifier_cells

# The kinds a reading layer may be: those whose recurrent layer the table names (the text classifier's:
# the LSTM and GRU baselines and the skim kinds).
READER_CELLS = text_classifier_cells()


@keras.saving.register_keras_serializable(package="keras_skim")
class BidirectionalReader(keras.layers.Layer):
    """A forward and a backward recurrent layer of one kind, outputs concatenated.

    h_t = [h_t^fw; h_t^bw], each of size d, from the layer the model-kind
    table names for `cell` (`keras.layers.LSTM`, or a skim layer whose cell
    reads a token with its big cell of size d or skims it with its small cell
    of size d'). Unlike `keras.layers.Bidirectional`
    it also returns, for a skim kind, how many real tokens each direction saw
    and how many it skimmed (`read`), so a model reports its skim rate per
    layer and direction from the same pass that computes its answer.

    Args:
        cell: a `keras-skim train --cell` value in `READER_CELLS`.
        units: int, d.
        small_units: int, d' of a skim kind (ignored otherwise).
        gamma: float, weight of a skim kind's skim loss.
        threshold: float, a skim kind's inference threshold (read iff
            p_read >= threshold).
        seed: seed of a skim kind's Gumbel noise (each direction its own).
        **kwargs: base layer keyword arguments, such as `name`.

    Call arguments:
        sequences: float tensor `(batch, T, F)`.
        mask: optional boolean `(batch, T)`: padding is False.
        training: bool.

    Returns:
        float tensor `(batch, T, 2d)`.

    Example:

    >>> import numpy as np
    >>> from keras_skim.model_kinds import DEFAULT_CELL
    >>> reader = BidirectionalReader(DEFAULT_CELL, 8, 2)
    >>> outputs, counts = reader.read(np.ones((2, 5, 3), "float32"))
    >>> tuple(outputs.shape), tuple(counts.shape)
    ((2, 5, 16), (2, 2, 2))

    Reference:
        Minjoon Seo, Sewon Min, Ali Farhadi, Hannaneh Hajishirzi.
        "Neural Speed Reading" (the skim paper). ICLR 2018.
        https://arxiv.org/abs/1711.02085
    """

    def __init__(self, cell="lstm", units=100, small_units=20, gamma=0.01, threshold=0.5, seed=None, **kwargs):
        super().__init__(**kwargs)
        if cell not in READER_CELLS:
            raise ValueError(f"cell must be one of {', '.join(READER_CELLS)}; got {cell!r}")
        self.cell, self.units, self.small_units = cell, units, small_units
        self.gamma, self.threshold, self.seed = gamma, threshold, seed
        self.skims = cli_kind(cell).skims
        self.forward_layer = self._direction(go_backwards=False, name="forward")
        self.backward_layer = self._direction(go_backwards=True, name="backward")

    def _direction(self, go_backwards, name):
        kind = cli_kind(self.cell)
        layer = load(kind.layer)
        if not kind.skims:
            return layer(self.units, return_sequences=True, go_backwards=go_backwards, name=name)
        # Two directions with one seed would draw the same Gumbel noise.
        seed = None if self.seed is None else self.seed + int(go_backwards)
        return layer(
            self.units,
            self.small_units,
            gamma=self.gamma,
            threshold=self.threshold,
            seed=seed,
            return_sequences=True,
            return_state=True,  # the last state holds the token and skim counts
            go_backwards=go_backwards,
            name=name,
        )

    def build(self, sequences_shape):
        self.forward_layer.build(sequences_shape)
        self.backward_layer.build(sequences_shape)

    def call(self, sequences, mask=None, training=None):
        return self.read(sequences, mask, training)[0]

    def read(self, sequences, mask=None, training=None):
        """`(outputs (batch, T, 2d), counts (batch, 2, 2))`: counts[:, direction]
        = (real tokens, skimmed tokens), forward first; a kind without a
        skim gate skims none."""
        found = [self._run(layer, sequences, mask, training) for layer in (self.forward_layer, self.backward_layer)]
        forward, backward = found[0][0], ops.flip(found[1][0], axis=1)  # back in token order
        counts = ops.stack([found[0][1], found[1][1]], axis=1)
        return ops.concatenate([forward, backward], axis=-1), counts

    def _run(self, layer, sequences, mask, training):
        if mask is None:
            mask = ops.ones(ops.shape(sequences)[:2], "bool")
        if not self.skims:
            outputs = layer(sequences, mask=mask, training=training)
            tokens = ops.sum(ops.cast(mask, "float32"), axis=1)
            return outputs, ops.stack([tokens, ops.zeros_like(tokens)], axis=-1)
        outputs, *states = layer(sequences, mask=mask, training=training)
        tokens, skimmed = skim_gate().token_counts(states)
        return outputs, ops.stack([ops.cast(tokens, "float32"), ops.cast(skimmed, "float32")], axis=-1)

    def compute_output_shape(self, sequences_shape):
        return (*sequences_shape[:-1], 2 * self.units)

    def get_config(self):
        return {
            **super().get_config(),
            "cell": self.cell,
            "units": self.units,
            "small_units": self.small_units,
            "gamma": self.gamma,
            # set_threshold changes the cells' threshold after construction: save the current one
            "threshold": float(self.forward_layer.threshold) if self.skims else self.threshold,
            "seed": self.seed,
        }
