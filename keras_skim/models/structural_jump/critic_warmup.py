"""Critic warm-up before Structural-Jump-LSTM's actors start learning."""

from typing import Any

import keras

from keras_skim.models.structural_jump.loss_weight_schedule import LossWeightSchedule, check_steps


@keras.saving.register_keras_serializable(package="keras_skim")
class CriticWarmup(LossWeightSchedule):
    """Turns the actor loss off for the first `steps` training steps.

    Phase 1 (full reading) does not train the critics, so when speed
    reading starts their values are arbitrary and so are the advantages
    R - V that weight the actors' gradients. This callback sets the model's
    `actor_weight` (beta) to 0 while the optimizer's step count is below
    `steps`, then back to its value, so that the critics (and the
    classifier, on sampled trajectories) catch up first. The authors' code
    has this as `pretrain_agent_and_critic` with `init_runs`, set to 0 in
    its runs; the notes of this project suggest a few hundred steps.

    Args:
        steps: number of steps without the actor loss.

    Example:

    >>> import numpy as np, keras
    >>> from keras_skim import StructuralJumpLSTM, CriticWarmup
    >>> model = StructuralJumpLSTM(20, [2], [3], units=4, agent_units=2, embedding_dim=3)
    >>> model.compile(keras.optimizers.RMSprop(1e-3))
    >>> ids = np.random.RandomState(0).randint(4, 20, (8, 6))
    >>> _ = model.fit(ids, ids[:, 0] % 2, batch_size=4, verbose=0, callbacks=[CriticWarmup(1)])
    >>> model.actor_weight
    10.0
    """

    weight = "actor_weight"

    def __init__(self, steps: int) -> None:
        super().__init__()
        check_steps("steps", steps, minimum=0)
        self.steps = steps

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._actor_weight = self.model.actor_weight

    def weight_at(self, step: int) -> float:
        return 0.0 if step < self.steps else self._actor_weight

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        self.model.actor_weight = self._actor_weight

    def get_config(self) -> dict[str, Any]:
        return {"steps": self.steps}
