"""RMSprop as TensorFlow 1 ran it for Structural-Jump-LSTM's authors."""

import math
from typing import Any

import keras
from keras import ops

from keras_skim.private_apis import rmsprop_velocities


@keras.saving.register_keras_serializable(package="keras_skim")
class PerTensorClipRMSprop(keras.optimizers.RMSprop):
    """RMSprop with per-tensor average-norm clipping and accumulators at 1.

    The authors' code (`network.py::_optimize`) clips each gradient tensor
    with TF1's `clip_by_average_norm(g, 0.1)`, `g * min(1, 0.1 * numel(g) /
    ||g||)` (Keras' `clipnorm` and `global_clipnorm` are different rules),
    and uses `tf.train.RMSPropOptimizer` (decay 0.9, epsilon 1e-10), whose
    mean-square accumulators start at 1, not 0: the first steps are about
    `lr * g` instead of `lr * g / |g| * sqrt(10)`.

    Args:
        learning_rate: Defaults to 5e-4 (the paper's, for classification).
        clip_average_norm: the 0.1 of `clip_by_average_norm`; 0 disables.
        initial_accumulator: start value of the mean-square accumulators.
        rho, epsilon, **kwargs: as in `keras.optimizers.RMSprop`.

    Example:

    >>> import numpy as np, keras
    >>> from keras_skim.models.structural_jump.per_tensor_clip_rmsprop import PerTensorClipRMSprop
    >>> model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    >>> model.compile(PerTensorClipRMSprop(), "mse")
    >>> _ = model.fit(np.ones((4, 3)), np.ones((4, 1)), verbose=0)

    Reference:
        Hansen et al., "Neural Speed Reading with Structural-Jump-LSTM",
        ICLR 2019, section 4.1 ("gradient clipping with a thresholded value
        of 0.1") and the authors' code.
    """

    def __init__(
        self,
        learning_rate: float | Any = 0.0005,
        rho: float = 0.9,
        epsilon: float = 1e-10,
        clip_average_norm: float = 0.1,
        initial_accumulator: float = 1.0,
        name: str = "per_tensor_clip_rmsprop",
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, rho=rho, epsilon=epsilon, name=name, **kwargs)
        if not clip_average_norm >= 0 or not initial_accumulator >= 0:
            raise ValueError(
                "clip_average_norm and initial_accumulator must be >= 0. Received: "
                f"{clip_average_norm}, {initial_accumulator}"
            )
        self.clip_average_norm = float(clip_average_norm)
        self.initial_accumulator = float(initial_accumulator)

    def build(self, var_list: Any) -> None:
        if self.built:
            return
        super().build(var_list)
        # The accumulators are a private attribute (keras_skim/private_apis.py).
        for velocity in rmsprop_velocities(self):
            velocity.assign(ops.full(velocity.shape, self.initial_accumulator, velocity.dtype))

    # private_apis.CLIP_GRADIENTS_HOOK: Keras' clipping hook, called on unscaled gradients.
    def _clip_gradients(self, grads):
        grads = super()._clip_gradients(grads)
        if not self.clip_average_norm:
            return grads
        return [None if g is None else self._clip_one(g) for g in grads]

    def _clip_one(self, gradient):
        import tensorflow as tf

        if isinstance(gradient, tf.IndexedSlices):
            # Rows of repeated ids are summed first, as TF1 did
            # (`_deduplicate_indexed_slices`): RMSprop squares the gradient,
            # so two half rows are not one whole row.
            indices, positions = tf.unique(gradient.indices)
            values = tf.math.unsorted_segment_sum(gradient.values, positions, tf.shape(indices)[0])
            numel = tf.cast(tf.reduce_prod(gradient.dense_shape), values.dtype)
            scale = self._scale(values, numel)
            return tf.IndexedSlices(values * scale, indices, gradient.dense_shape)
        return gradient * self._scale(gradient)

    def _scale(self, gradient, numel=None):
        if numel is None:
            numel = float(max(math.prod(gradient.shape), 1))  # dense gradients have static shapes
        norm = ops.sqrt(ops.sum(ops.square(gradient)))
        limit = ops.cast(self.clip_average_norm * numel, norm.dtype)
        return ops.minimum(1.0, limit / ops.maximum(norm, 1e-30))

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "clip_average_norm": self.clip_average_norm,
            "initial_accumulator": self.initial_accumulator,
        }
