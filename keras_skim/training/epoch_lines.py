"""Training progress that suits where it goes: Keras' progress bar on a
terminal, one plain line per epoch (no ANSI codes, no carriage returns)
when stdout is a file or a pipe (a CI log, `nohup`, `| tee`)."""

from __future__ import annotations

import sys
import time
from typing import Any

import keras


class EpochLines(keras.callbacks.Callback):
    """Prints one line per epoch: `epoch 2/5: loss 0.6812, accuracy 0.5625,
    val_loss 0.6901, val_accuracy 0.5000 [3 s]`.

    Args:
        stream: where the lines go (default: `sys.stdout` when each line is written).
    """

    def __init__(self, stream: Any = None) -> None:
        super().__init__()
        self.stream = stream
        self._started = time.perf_counter()

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        self._started = time.perf_counter()

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        values = ", ".join(f"{name} {float(value):.4f}" for name, value in (logs or {}).items())
        epochs = self.params.get("epochs") if self.params else None
        seconds = time.perf_counter() - self._started
        line = f"epoch {epoch + 1}" + (f"/{epochs}" if epochs else "") + (f": {values}" if values else "")
        print(f"{line} [{seconds:.0f} s]", file=self.stream or sys.stdout, flush=True)


def fit_progress(verbose: int) -> tuple[int, list[keras.callbacks.Callback]]:
    """(`verbose` for `model.fit`, callbacks to add) for a training run's
    `verbose` (0: silent): Keras' own bar on a terminal, else `EpochLines`."""
    if not verbose:
        return 0, []
    if sys.stdout.isatty():
        return verbose, []
    return 0, [EpochLines()]
