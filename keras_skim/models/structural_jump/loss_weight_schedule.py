"""What `CriticWarmup` and `EntropyWeightDecay` share: a callback that sets
one of a Structural-Jump-LSTM's loss weights from the optimizer's step
count before each training batch."""

from typing import Any, ClassVar

import keras


class LossWeightSchedule(keras.callbacks.Callback):
    """Base class of the Structural-Jump-LSTM loss-weight callbacks; not used
    directly.

    Before each training batch it sets the model's attribute `weight` to
    `weight_at(n)`, with n the optimizer's step count (so a fresh optimizer
    restarts the schedule). Subclasses set `weight` and implement
    `weight_at`.
    """

    # the model attribute that the schedule sets; each subclass names it
    weight: ClassVar[str]

    def weight_at(self, step: int) -> float:
        """The weight at optimizer step `step`."""
        raise NotImplementedError

    def on_train_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        step = int(self.model.optimizer.iterations.numpy())
        setattr(self.model, self.weight, self.weight_at(step))


def check_steps(name, value, minimum):
    """Refuses a step count that is not an integer >= `minimum` (one line)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}. Received: {value!r}")
