"""Backend pieces for TensorFlow (see `keras_skim.backends`): the only
module of the layers that imports TensorFlow."""

import tensorflow as tf

from keras_skim.backends.portable_backend import loop_seed, step_seed

__all__ = ["loop_seed", "pad_time", "split_sizes", "step_seed", "trim_time"]


def split_sizes(x, sizes):
    """`x` split on its last axis into pieces of the given sizes: one op
    (`keras.ops.split` turns split points into sizes with a few ops of its
    own, which a recurrent loop would run at every step)."""
    return tf.split(x, sizes, axis=-1)


def trim_time(x, steps):
    """`x[:, :steps]`: a batch runs only as many steps as it needs."""
    return x[:, :steps]


def pad_time(x, length, steps):
    """`x` of `steps` steps padded with zeros on axis 1 to `length` steps."""
    return tf.pad(x, [[0, 0], [0, length - steps], [0, 0]])
