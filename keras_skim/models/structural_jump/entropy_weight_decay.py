"""The decay of Structural-Jump-LSTM's target ("entropy") weight as a callback."""

from typing import Any

import keras

from keras_skim.models.structural_jump.loss_weight_schedule import LossWeightSchedule, check_steps


@keras.saving.register_keras_serializable(package="keras_skim")
class EntropyWeightDecay(LossWeightSchedule):
    """Linearly decays the model's `entropy_weight` (delta) during training.

    delta(n) = initial + (final - initial) * min(n, decay_steps) / decay_steps,
    with n the optimizer's step count, set before each training batch. The
    authors' code decays delta from 0.1 to 0.1 * 0.05 = 0.005 over the first
    half of speed-read training (`polynomial_decay` with power 1 over
    `(max_iteration - partial_read_until) // 2` steps), then keeps it.
    Use it with a fresh optimizer for the speed-read phase, so that n
    counts that phase's steps only, as in the code.

    Args:
        decay_steps: steps over which delta goes from `initial` to `final`.
        initial: delta at step 0. Defaults to 0.1.
        final: delta from `decay_steps` on. Defaults to 0.005.

    Example:

    >>> import numpy as np, keras
    >>> from keras_skim import StructuralJumpLSTM, EntropyWeightDecay
    >>> model = StructuralJumpLSTM(20, [2], [3], units=4, agent_units=2, embedding_dim=3)
    >>> model.compile(keras.optimizers.RMSprop(1e-3))
    >>> ids = np.random.RandomState(0).randint(4, 20, (8, 6))
    >>> _ = model.fit(ids, ids[:, 0] % 2, batch_size=4, verbose=0,
    ...               callbacks=[EntropyWeightDecay(decay_steps=4)])
    >>> round(model.entropy_weight, 4)  # set at step 1 before the last batch
    0.0763

    Reference:
        Hansen et al., "Neural Speed Reading with Structural-Jump-LSTM",
        ICLR 2019, and the authors' code (`network.py`).
    """

    weight = "entropy_weight"

    def __init__(self, decay_steps: int, initial: float = 0.1, final: float = 0.005) -> None:
        super().__init__()
        check_steps("decay_steps", decay_steps, minimum=1)
        if not (initial >= 0 and final >= 0):
            raise ValueError(f"initial and final must be >= 0. Received: initial={initial}, final={final}")
        self.decay_steps = decay_steps
        self.initial = float(initial)
        self.final = float(final)

    def weight_at(self, step: int) -> float:
        fraction = min(step, self.decay_steps) / self.decay_steps
        return self.initial + (self.final - self.initial) * fraction

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if logs is not None:
            logs["entropy_weight"] = self.model.entropy_weight

    def get_config(self) -> dict[str, Any]:
        return {"decay_steps": self.decay_steps, "initial": self.initial, "final": self.final}
