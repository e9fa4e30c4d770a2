"""The Gumbel-softmax temperature schedule of Skim-RNN as a Keras callback."""

import math
from typing import Any

import keras

from keras_skim.models.skim_rnn.skim_controls import skim_cells


@keras.saving.register_keras_serializable(package="keras_skim")
class GumbelTemperatureSchedule(keras.callbacks.Callback):
    """Anneals the Gumbel-softmax temperature of every skim cell in a model.

    tau = max(min_temperature, exp(-rate * n)), with n the optimizer's step
    count, set before each training batch (Seo et al. 2018, section 3.1,
    use r = 1e-4 and a floor of 0.5).

    Args:
        rate: decay rate r per training step. Defaults to 1e-4.
        min_temperature: the floor of the schedule. Defaults to 0.5.

    Example:

    >>> import numpy as np, keras
    >>> from keras_skim import SkimLSTMCell, GumbelTemperatureSchedule
    >>> model = keras.Sequential([keras.Input((4, 3)),
    ...     keras.layers.RNN(SkimLSTMCell(8, 2)), keras.layers.Dense(1)])
    >>> model.compile("adam", "mse")
    >>> _ = model.fit(np.zeros((4, 4, 3)), np.zeros((4, 1)), verbose=0,
    ...               callbacks=[GumbelTemperatureSchedule()])

    Reference:
        Seo et al., "Neural Speed Reading via Skim-RNN", ICLR 2018.
    """

    def __init__(self, rate: float = 0.0001, min_temperature: float = 0.5) -> None:
        super().__init__()
        if rate < 0 or min_temperature <= 0:
            raise ValueError(
                "GumbelTemperatureSchedule needs rate >= 0 and min_temperature > 0. "
                f"Received: rate={rate}, min_temperature={min_temperature}"
            )
        self.rate = rate
        self.min_temperature = min_temperature

    def temperature_at(self, step: int) -> float:
        return max(self.min_temperature, math.exp(-self.rate * step))

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._cells = skim_cells(self.model)

    def on_train_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        step = int(self.model.optimizer.iterations.numpy())
        tau = self.temperature_at(step)
        for cell in self._cells:
            cell.temperature.assign(tau)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if logs is not None and self._cells:
            logs["temperature"] = float(self._cells[0].temperature.numpy())

    def get_config(self) -> dict[str, Any]:
        return {"rate": self.rate, "min_temperature": self.min_temperature}
