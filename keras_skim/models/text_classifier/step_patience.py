"""Early stopping counted in training steps, as the speed-reading paper has it
(Seo et al., ICLR 2018: stop when validation accuracy has not improved for
3,000 steps)."""

import math

import keras


class StepPatience(keras.callbacks.Callback):
    """Stops training once the validation accuracy has not improved for
    `patience_steps` training steps, and keeps the best weights.

    Validation runs at each epoch's end (Keras' `validation_data`), so the
    stop is decided there: at the first epoch end at least `patience_steps`
    steps after the epoch of the best accuracy. At the end of training the
    weights of that best epoch are restored, whether or not it stopped early,
    so the kept point is chosen on validation only.

    Args:
        patience_steps: training steps without a better validation accuracy
            before training stops (an integer >= 1).
        monitor: the logged validation metric to maximise.
    """

    # What carries from one epoch to the next (with `best_weights`): a
    # resumed run restores them (keras_skim.training.epoch_checkpoint).
    STATE_ATTRIBUTES = ("steps", "best", "best_step", "stopped_step")

    def __init__(self, patience_steps, monitor="val_accuracy"):
        super().__init__()
        if isinstance(patience_steps, bool) or not isinstance(patience_steps, int) or patience_steps < 1:
            raise ValueError(f"patience_steps must be an integer >= 1; got {patience_steps!r}")
        self.patience_steps = patience_steps
        self.monitor = monitor

    def on_train_begin(self, logs=None):
        self.steps = 0
        self.best = -math.inf
        self.best_step = 0
        self.best_weights = None
        self.stopped_step = None

    def on_train_batch_end(self, batch, logs=None):
        self.steps += 1

    def on_epoch_end(self, epoch, logs=None):
        value = (logs or {}).get(self.monitor)
        if value is None:
            return
        if float(value) > self.best:
            self.best, self.best_step = float(value), self.steps
            self.best_weights = self.model.get_weights()
        elif self.steps - self.best_step >= self.patience_steps:
            self.model.stop_training = True
            self.stopped_step = self.steps

    def on_train_end(self, logs=None):
        if self.best_weights is not None:
            self.model.set_weights(self.best_weights)
