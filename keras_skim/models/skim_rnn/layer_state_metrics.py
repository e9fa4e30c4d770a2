"""The `skim_rate` and `skim_loss` metrics of a skim cell: metrics whose
counts are the cell's state, so that they reach `fit` logs on every backend.

Keras' JAX trainer runs a layer's `call` statelessly: only the layer's
`non_trainable_variables` come back from `stateless_call`, and a metric
updated inside `call` loses its update (issue 34). So the cell counts its
real and skimmed tokens and its skim loss in variables that are part of its
own state (`SkimCellBase.variables`, hence the model's
`non_trainable_variables`), assigned after each RNN loop from the loop's
bookkeeping state, the way `BatchNormalization` keeps its moving statistics;
the trainer carries them from step to step and writes them back at the end
of the epoch. The metrics below only read those counts (their `variables`
are empty, so the trainer does not carry them twice) and reset them.

What this gives in `fit` logs: on TensorFlow and PyTorch every batch's and
epoch's value; on JAX the epoch's value (Keras computes the epoch's logs
from the model's metrics after writing the state back), while the logs of
a batch inside the epoch (computed in the jitted step, which sees only the
metrics' own variables) read 0. `evaluate` returns the exact value on every
backend.
"""

from typing import Any

import keras
from keras import ops

from keras_skim import keras_internals
from keras_skim.models.skim_rnn.skim_rate import SkimRate


class LayerStateMetric:
    """Mixin for a `keras.metrics.Metric` whose variables are its layer's
    state: the layer lists `state_variables` among its own `variables` and
    assigns them in `call`; the metric reads and resets them."""

    @property
    def variables(self) -> list:
        # Not the metric's: the model's metrics_variables would hold them a
        # second time, and the JAX trainer would overwrite the layer's update.
        return []

    @property
    def state_variables(self) -> list:
        """The counts, in the order the metric created them."""
        return list(self._variables)

    def reset_state(self) -> None:
        for variable in self.state_variables:
            variable.assign(ops.zeros(variable.shape, dtype=variable.dtype))

    def result(self) -> Any:
        if not keras_internals.variables_readable(self.state_variables):
            # JAX's jitted step computing a batch's logs (see the module docstring).
            return ops.zeros((), dtype=self.dtype)
        return super().result()


class CellSkimRate(LayerStateMetric, SkimRate):
    """A skim cell's `skim_rate`: `skimmed` / `tokens`, counted by the cell."""


class CellSkimLoss(LayerStateMetric, keras.metrics.Mean):
    """A skim cell's `skim_loss`: the mean of the cell's skim-loss term over
    this epoch's batches, weighted by batch size (`total` / `count`,
    counted by the cell)."""
