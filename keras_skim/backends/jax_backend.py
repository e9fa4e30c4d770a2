"""Backend pieces for JAX (see `keras_skim.backends`)."""

import jax

from keras_skim.backends.portable_backend import pad_time, split_sizes, trim_time

__all__ = ["loop_seed", "pad_time", "split_sizes", "step_seed", "trim_time"]


def loop_seed(seed_generator):
    """A key drawn from `seed_generator` before a recurrent loop: Keras runs
    the loop in `jax.lax.scan`, where advancing the generator's state would
    leak a tracer out of the scan; each step folds its index into this key."""
    return seed_generator.next()


def step_seed(seed, step):
    """The key of loop step `step` (an integer tensor) from `loop_seed`'s."""
    return jax.random.fold_in(seed, step.astype("uint32"))
