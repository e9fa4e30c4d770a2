"""The few operations that differ between Keras backends, one module per
backend (as Keras keeps `keras/src/backend/<name>/`), chosen once from
`keras.backend.backend()`; everything else in the layers is `keras.ops`.

- `tensorflow_backend`: TensorFlow ops where they are one op instead of a
  few (the export traces them) and dynamic shapes (a batch runs only as many
  steps as its longest text).
- `jax_backend`: random draws inside `jax.lax.scan` take a key made before
  the loop (a `SeedGenerator` updated inside the loop leaks a tracer), and
  shapes stay static (`jit` needs them).
- `portable_backend`: `keras.ops` only (PyTorch, NumPy).

TensorFlow is imported only by `tensorflow_backend`, so the layers import
and train without it on the other backends.
"""

import keras

_BACKEND = keras.backend.backend()

if _BACKEND == "tensorflow":
    from keras_skim.backends import tensorflow_backend as current
elif _BACKEND == "jax":
    from keras_skim.backends import jax_backend as current
else:
    from keras_skim.backends import portable_backend as current

__all__ = ["current"]
