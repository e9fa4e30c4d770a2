"""Runs exported keras-skim models with LiteRT; never imports TensorFlow or Keras.

`SkimRunner(path).classify(text, threshold=None)` -> a `Classification`:
(probabilities, read_mask, tokens), with `.label`, the predicted class's
name (the training data's, from `metadata.json`'s `class_names`). An
export of a model on float sequences (`metadata.json`'s `input_kind`
"sequence") runs with `SkimRunner(path).run_sequence(x)`, x [T, F] or
[B, T, F].
"""

from keras_skim.runtime.classification import Classification
from keras_skim.runtime.runner import RuntimeModelError, SkimRunner

__all__ = ["Classification", "RuntimeModelError", "SkimRunner"]
