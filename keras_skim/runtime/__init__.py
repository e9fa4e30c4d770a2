"""Runs exported keras-skim models with LiteRT; never imports TensorFlow or Keras.

`SkimRunner(path).classify(text, threshold=None) -> (probabilities, read_mask, tokens)`.
"""

from keras_skim.runtime.runner import RuntimeModelError, SkimRunner

__all__ = ["RuntimeModelError", "SkimRunner"]
