"""The `skim_rate` metric that skim cells report in `fit` and `evaluate` logs."""
import keras
from keras import ops


@keras.saving.register_keras_serializable(package="keras_skim")
class SkimRate(keras.metrics.Metric):
    """Fraction of real (unmasked) tokens that a skim cell skimmed.

    A skim cell owns one `SkimRate` and updates it from inside the recurrent
    loop, so it appears in `model.fit` logs and `model.evaluate` results
    without being compiled. Keras applies the padding mask to the states
    after the cell has run, so the cell learns whether step `t` was a real
    token only at step `t + 1`: each step commits the decision of the step
    before it. The last time step of a batch is therefore never counted;
    pad every batch with one trailing padding token (as
    `keras_skim.skim_statistics` and the CLI do) and the rate is exact.

    Args:
        name: metric name, `"skim_rate"` by default.
        dtype: dtype of the metric variables.

    Example:

    >>> m = SkimRate()
    >>> m.update_counts(skimmed=3.0, tokens=4.0)
    >>> float(m.result())
    0.75
    """

    def __init__(self, name="skim_rate", dtype="float32"):
        super().__init__(name=name, dtype=dtype)
        self.skimmed = self.add_variable(
            shape=(), initializer="zeros", dtype=self.dtype, name="skimmed"
        )
        self.tokens = self.add_variable(
            shape=(), initializer="zeros", dtype=self.dtype, name="tokens"
        )
        # A step counter that Keras' masking cannot touch: it tells the cell
        # which state entries were written by the immediately previous step.
        self.clock = self.add_variable(
            shape=(), initializer="zeros", dtype=self.dtype, name="clock"
        )

    def update_counts(self, skimmed, tokens):
        self.skimmed.assign_add(ops.cast(skimmed, self.dtype))
        self.tokens.assign_add(ops.cast(tokens, self.dtype))

    def update_state(self, skimmed, tokens, sample_weight=None):
        del sample_weight
        self.update_counts(ops.sum(skimmed), ops.sum(tokens))

    def tick(self):
        """Advances the step clock and returns its value before the tick."""
        now = ops.convert_to_tensor(self.clock)
        self.clock.assign_add(ops.cast(1.0, self.dtype))
        return now

    def result(self):
        return ops.divide_no_nan(self.skimmed, self.tokens)

    def reset_state(self):
        self.skimmed.assign(0.0)
        self.tokens.assign(0.0)
        self.clock.assign(0.0)

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}
