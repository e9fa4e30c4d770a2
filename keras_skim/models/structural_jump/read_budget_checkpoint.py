"""Model selection for speed reading: the most accurate epoch within a
reading budget."""

import keras


class ReadBudgetCheckpoint(keras.callbacks.Callback):
    """Keeps the weights of the best epoch whose reading fits a budget.

    At the end of each epoch, an epoch qualifies if its validation read
    fraction (the greedy policy's) is at most `budget`; among those, the one
    with the highest `monitor` wins. If no epoch qualifies, the one with
    the highest `fallback` wins (by default the validation reward, the
    authors' rule). The winning weights are restored when training ends.

    The authors select by validation reward, which prices 10% of the words
    read like 1 point of accuracy (rolling weight 0.1); this callback is
    for a fixed read budget instead (the way a skim model's threshold is
    tuned on validation).

    Args:
        budget: largest acceptable `read_key` value, in [0, 1].
        monitor: log to maximise among qualifying epochs.
        read_key: log holding the read fraction.
        fallback: log to maximise when no epoch qualifies.

    Attributes:
        selected_epoch: 0-based epoch of the restored weights (None if none).
        within_budget: whether that epoch met the budget.

    Example:

    >>> from keras_skim.models.structural_jump.read_budget_checkpoint import ReadBudgetCheckpoint
    >>> ReadBudgetCheckpoint(0.6).budget
    0.6
    """

    def __init__(self, budget, monitor="val_accuracy", read_key="val_read_fraction", fallback="val_reward"):
        super().__init__()
        if not 0.0 <= budget <= 1.0:
            raise ValueError(f"budget must be a read fraction in [0, 1]; got {budget!r}")
        self.budget = float(budget)
        self.monitor = monitor
        self.read_key = read_key
        self.fallback = fallback

    def on_train_begin(self, logs=None):
        self.selected_epoch = None
        self.within_budget = False
        self._best = None
        self._weights = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        for key in (self.monitor, self.read_key, self.fallback):
            if key not in logs:
                raise ValueError(f"ReadBudgetCheckpoint needs {key!r} in the epoch logs (validation data?)")
        fits = logs[self.read_key] <= self.budget
        score = logs[self.monitor] if fits else logs[self.fallback]
        if self._best is None or (fits, score) > (self.within_budget, self._best):
            self._best, self.within_budget = score, fits
            self.selected_epoch = epoch
            self._weights = self.model.get_weights()

    def on_train_end(self, logs=None):
        if self._weights is not None:
            self.model.set_weights(self._weights)
