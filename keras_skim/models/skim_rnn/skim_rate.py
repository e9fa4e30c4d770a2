"""The `skim_rate` metric that skim cells report in `fit` and `evaluate` logs."""

from typing import Any

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="keras_skim")
class SkimRate(keras.metrics.Metric):
    """Fraction of real (unmasked) tokens that a skim cell skimmed.

    A skim cell owns one (`keras_skim.models.skim_rnn.layer_state_metrics`),
    so it appears in `model.fit` logs and `model.evaluate` results without
    being compiled. After each run of its `keras.layers.RNN`, the cell adds
    the counts of that batch's real tokens and skimmed tokens, read from its
    bookkeeping state (which Keras' mask keeps exact: padded steps leave it
    unchanged). In training a token counts as skimmed when its
    Gumbel-softmax sample favours skimming; at inference when
    p(read) < threshold. The cell's counts are its own state (the model's
    non-trainable variables, not weights), so that the JAX backend's
    stateless trainer carries them: there the epoch's logs and `evaluate`
    are exact, and a batch's logs inside an epoch read 0.

    Args:
        name: metric name, `"skim_rate"` by default.
        dtype: dtype of the metric variables.

    Example:

    >>> m = SkimRate()
    >>> m.update_counts(skimmed=3.0, tokens=4.0)
    >>> float(m.result())
    0.75
    """

    def __init__(self, name: str = "skim_rate", dtype: str | Any = "float32") -> None:
        super().__init__(name=name, dtype=dtype)
        self.skimmed = self.add_variable(shape=(), initializer="zeros", dtype=self.dtype, name="skimmed")
        self.tokens = self.add_variable(shape=(), initializer="zeros", dtype=self.dtype, name="tokens")

    def update_counts(self, skimmed: Any, tokens: Any) -> None:
        self.skimmed.assign_add(ops.cast(skimmed, self.dtype))
        self.tokens.assign_add(ops.cast(tokens, self.dtype))

    def update_state(self, skimmed: Any, tokens: Any, sample_weight: Any = None) -> None:
        del sample_weight
        self.update_counts(ops.sum(skimmed), ops.sum(tokens))

    def result(self) -> Any:
        return ops.divide_no_nan(self.skimmed, self.tokens)

    def reset_state(self) -> None:
        self.skimmed.assign(0.0)
        self.tokens.assign(0.0)

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "dtype": self.dtype}
