"""Backend pieces in `keras.ops` only: PyTorch, NumPy, and the base of
`jax_backend` (see `keras_skim.backends`)."""

from keras import ops


def split_sizes(x, sizes):
    """`x` split on its last axis into pieces of the given sizes."""
    points = [sum(sizes[: k + 1]) for k in range(len(sizes) - 1)]
    return ops.split(x, points, axis=-1)


def loop_seed(seed_generator):
    """The seed that a recurrent loop's random draws derive from, drawn
    before the loop; None where the loop may use `seed_generator` itself
    (an eager Python loop, or a TensorFlow while loop)."""
    del seed_generator
    return None


def step_seed(seed, step):
    """The seed of one loop step from `loop_seed`'s seed (only called when
    that is not None)."""
    raise NotImplementedError("loop_seed returns None on this backend")


def trim_time(x, steps):
    """`x[:, :steps]` where shapes may depend on values; `x` otherwise (the
    steps past `steps` are then run and must change nothing)."""
    del steps
    return x


def pad_time(x, length, steps):
    """`x` of `steps` steps padded with zeros on axis 1 to `length` steps
    (the inverse of `trim_time`)."""
    del length, steps
    return x
