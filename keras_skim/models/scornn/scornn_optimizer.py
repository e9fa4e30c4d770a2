"""Two learning rates for scoRNN: one for the skew matrix A, one for the rest.

The paper (Helfrich et al., ICML 2018) updates the skew-symmetric parameter
`A` of the scoRNN with its own optimizer and a smaller learning rate
(e.g. RMSprop 1e-4 for `A`, RMSprop 1e-3 for the other weights).
`ScoRNNOptimizer` wraps two Keras optimizers and dispatches each variable
by its path: variables whose path ends with `/skew_parameters` (the name of
`ScoRNNCell`'s `A` weight) go to `skew_optimizer`, all others to
`optimizer`. It uses only the public optimizer API (`build`, `apply`,
`variables`, `iterations`), so it runs on every Keras 3 release keras-skim
supports (`keras.optimizers.MultiOptimizer`, which did the same, is missing
from Keras 3.12). It is registered with Keras, so a compiled model saved as
`.keras` reloads with it and with the state of both inner optimizers.

Example:

```python
import keras
from keras_skim.models.scornn.scornn_cell import ScoRNNCell
from keras_skim.models.scornn.scornn_optimizer import scornn_optimizer

model = keras.Sequential([
    keras.Input((None, 1)),
    keras.layers.RNN(ScoRNNCell(32)),
    keras.layers.Dense(10),
])
model.compile(
    optimizer=scornn_optimizer(
        optimizer=keras.optimizers.RMSprop(1e-3),
        skew_optimizer=keras.optimizers.RMSprop(1e-4),
    ),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
)
```

`ScoRNNOptimizer` has no single `learning_rate`: to change one during
training, use `model.optimizer.optimizer.learning_rate` or
`model.optimizer.skew_optimizer.learning_rate`.
"""

from __future__ import annotations

import re
from typing import Any

import keras

DEFAULT_SKEW_VARIABLE_NAME = "skew_parameters"


def _get_optimizer(value, default_learning_rate, argument):
    if value is None:
        return keras.optimizers.RMSprop(learning_rate=default_learning_rate)
    if isinstance(value, (str, dict)):
        value = keras.optimizers.get(value)
    if not isinstance(value, keras.optimizers.Optimizer) or isinstance(
        value, (ScoRNNOptimizer, keras.optimizers.LossScaleOptimizer)
    ):
        raise ValueError(
            f"Argument `{argument}` must be a plain Keras optimizer (instance, name or config), got {value!r}."
        )
    return value


@keras.saving.register_keras_serializable(package="keras_skim")
class ScoRNNOptimizer(keras.optimizers.Optimizer):
    """Optimizer that trains scoRNN's skew matrix with its own optimizer.

    Variables whose path ends with `"/" + skew_variable_name` (by default
    the `skew_parameters` weight of every `ScoRNNCell` in the model) are
    updated by `skew_optimizer`, all other trainable variables by
    `optimizer`. Both keep their own state (moments, iterations), which is
    saved and restored with the model. `iterations` counts the steps of the
    pair; there is no single `learning_rate` (set it on either optimizer).

    Args:
        optimizer: Keras optimizer (instance, name or config) for all the
            weights except the skew parameters. Default:
            `RMSprop(learning_rate=1e-3)` (the paper's setting).
        skew_optimizer: Keras optimizer for the skew parameters. Default:
            `RMSprop(learning_rate=1e-4)` (the paper's setting).
        skew_variable_name: Name of the skew weight. Default:
            `"skew_parameters"`.
        loss_scale_factor: Scales the loss (`scale_loss`); both inner
            optimizers divide their gradients by it.
        name: Optimizer name. Default: `"scornn_optimizer"`.
    """

    def __init__(
        self,
        optimizer: Any = None,
        skew_optimizer: Any = None,
        skew_variable_name: str = DEFAULT_SKEW_VARIABLE_NAME,
        loss_scale_factor: float | None = None,
        name: str = "scornn_optimizer",
    ) -> None:
        if not isinstance(skew_variable_name, str) or not skew_variable_name:
            raise ValueError(f"Argument `skew_variable_name` must be a non-empty string, got {skew_variable_name!r}.")
        optimizer = _get_optimizer(optimizer, 1e-3, "optimizer")
        skew_optimizer = _get_optimizer(skew_optimizer, 1e-4, "skew_optimizer")
        if skew_optimizer is optimizer:
            raise ValueError("Arguments `optimizer` and `skew_optimizer` must be two different optimizer instances.")
        # The base class wants a learning rate; this one is never used (each
        # inner optimizer applies its own).
        super().__init__(learning_rate=0.0, loss_scale_factor=loss_scale_factor, name=name)
        optimizer.loss_scale_factor = loss_scale_factor
        skew_optimizer.loss_scale_factor = loss_scale_factor
        self.optimizer = optimizer
        self.skew_optimizer = skew_optimizer
        self.skew_variable_name = skew_variable_name
        self._skew_path = re.compile(f"(.*/)?{re.escape(skew_variable_name)}")

    def is_skew_variable(self, variable: Any) -> bool:
        """Whether `variable` is updated by `skew_optimizer`."""
        return self._skew_path.fullmatch(variable.path) is not None

    def _split(self, values, variables):
        """(main values, main variables), (skew values, skew variables)."""
        main, skew = ([], []), ([], [])
        for value, variable in zip(values, variables):
            part = skew if self.is_skew_variable(variable) else main
            part[0].append(value)
            part[1].append(variable)
        return main, skew

    def _pairs(self, values, variables):
        main, skew = self._split(values, variables)
        return ((self.optimizer, *main), (self.skew_optimizer, *skew))

    def build(self, var_list: Any) -> None:
        if self.built:
            return
        var_list = list(var_list)
        for inner, _, variables in self._pairs(var_list, var_list):
            if variables:
                inner.build(variables)
        self._all_variables = var_list
        super().build(var_list)

    @property
    def variables(self):
        """This optimizer's own variables (`iterations`), then both inner optimizers'."""
        return [*super().variables, *self.optimizer.variables, *self.skew_optimizer.variables]

    @property
    def learning_rate(self):
        raise AttributeError(
            "ScoRNNOptimizer has two learning rates: use `.optimizer.learning_rate` or `.skew_optimizer.learning_rate`."
        )

    @learning_rate.setter
    def learning_rate(self, value):
        # The base class stores its (unused) rate through this setter.
        if hasattr(self, "optimizer"):
            raise AttributeError(
                "ScoRNNOptimizer has two learning rates: set `.optimizer.learning_rate` or "
                "`.skew_optimizer.learning_rate`."
            )

    def apply(self, grads: Any, trainable_variables: Any = None) -> Any:
        """Applies each gradient with the optimizer of its variable."""
        grads = list(grads)
        if trainable_variables is None:
            if not self.built:
                raise ValueError("Call `build(trainable_variables)` before `apply(grads)` without variables.")
            trainable_variables = self._all_variables
        trainable_variables = list(trainable_variables)
        if len(grads) != len(trainable_variables):
            raise ValueError(f"Got {len(grads)} gradients for {len(trainable_variables)} variables.")
        if not grads:
            return
        if not self.built:
            self.build(trainable_variables)
        for inner, values, variables in self._pairs(grads, trainable_variables):
            if variables:
                inner.apply(values, variables)
        self.iterations.assign_add(1)

    def finalize_variable_values(self, var_list: Any) -> None:
        var_list = list(var_list)
        for inner, _, variables in self._pairs(var_list, var_list):
            if variables:
                inner.finalize_variable_values(variables)

    def get_config(self) -> dict[str, Any]:
        return {
            "optimizer": keras.optimizers.serialize(self.optimizer),
            "skew_optimizer": keras.optimizers.serialize(self.skew_optimizer),
            "skew_variable_name": self.skew_variable_name,
            "loss_scale_factor": self.loss_scale_factor,
            "name": self.name,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> "ScoRNNOptimizer":
        config = dict(config)
        for key in ("optimizer", "skew_optimizer"):
            config[key] = keras.optimizers.deserialize(config[key], custom_objects=custom_objects)
        return cls(**config)


def scornn_optimizer(
    optimizer: Any = None,
    skew_optimizer: Any = None,
    skew_variable_name: str = DEFAULT_SKEW_VARIABLE_NAME,
    **kwargs: Any,
) -> ScoRNNOptimizer:
    """Returns a `ScoRNNOptimizer` for `model.compile(optimizer=...)`.

    Args:
        optimizer: Optimizer for every weight but scoRNN's skew matrix.
            Default: `RMSprop(1e-3)`.
        skew_optimizer: Optimizer for the skew parameters `A`. Default:
            `RMSprop(1e-4)`.
        skew_variable_name: Name of the skew weight (`"skew_parameters"`).
        **kwargs: `loss_scale_factor`, `name`.

    Returns:
        A `ScoRNNOptimizer`.
    """
    return ScoRNNOptimizer(
        optimizer=optimizer,
        skew_optimizer=skew_optimizer,
        skew_variable_name=skew_variable_name,
        **kwargs,
    )
