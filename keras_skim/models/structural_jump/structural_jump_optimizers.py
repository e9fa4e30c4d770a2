"""The optimizers a Structural-Jump-LSTM trains with, by name."""

import keras


def make_optimizer(kind, learning_rate):
    """ "rmsprop_tf1": the authors' RMSprop (per-tensor clipping, accumulators
    at 1; `PerTensorClipRMSprop`); "rmsprop": Keras' RMSprop; "adam"."""
    from keras_skim.models.structural_jump.per_tensor_clip_rmsprop import PerTensorClipRMSprop

    if kind == "rmsprop_tf1":
        return PerTensorClipRMSprop(learning_rate)
    if kind == "rmsprop":
        return keras.optimizers.RMSprop(learning_rate, rho=0.9, epsilon=1e-10)
    if kind == "adam":
        return keras.optimizers.Adam(learning_rate)
    raise ValueError(f"optimizer must be one of rmsprop_tf1, rmsprop, adam; got {kind!r}")
