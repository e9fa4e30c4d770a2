"""The skim loss equals gamma x the paper's eq. 8 in every training setting.

Each test runs one real `model.fit` step (with an optimizer that writes each
gradient into its variable) and compares its gradients with those of the task
loss plus eq. 8 recomputed outside the recurrent loop, on the same layers
with the same Gumbel noise (tests/training/skim_loss_reference.py). Every
toy batch has right and left padding, a hole, and full-length sequences.
MirroredStrategy: test_distributed_training.py.
"""

import keras
import numpy as np
import pytest

from tests.training import skim_loss_reference as ref

GAMMA = 1.0
HALF = np.array([1, 0, 1, 0, 1, 0, 1, 0], "float32")

SETTINGS = {
    "loss_scale_1024": dict(architecture="last", loss_scale=1024.0),
    "half_the_batch_at_sample_weight_0": dict(architecture="last", sample_weight=HALF),
    "only_the_first_output": dict(architecture="first"),
    "full_sequence_masked_mean": dict(architecture="sequence"),
    "bidirectional": dict(architecture="bidirectional"),
    "stacked_layers": dict(architecture="stacked"),
    "stacked_rnn_cells": dict(architecture="stacked_cells"),
    "no_mask": dict(architecture="last", mask_zero=False),
    "a_sequence_without_real_tokens": dict(architecture="last", empty_row=True),
}


def _compare(architecture, loss_scale=None, sample_weight=None, mask_zero=True, empty_row=False):
    ids, labels = ref.toy_batch(empty_row=empty_row)
    model, parts = ref.build(architecture, GAMMA, mask_zero=mask_zero)
    saved = ref.snapshot(model, parts)
    got, history = ref.fit_gradients(model, ids, labels, sample_weight, loss_scale)
    ref.restore(model, parts, saved)
    want, task, skim = ref.reference_gradients(model, parts, architecture, ids, labels, GAMMA, sample_weight)
    ref.restore(model, parts, saved)
    without, _, _ = ref.reference_gradients(model, parts, architecture, ids, labels, 0.0, sample_weight)
    return got, want, without, task, skim, history, parts


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_fit_step_has_the_gradient_of_the_explicit_skim_loss(setting):
    got, want, without, task, skim, history, parts = _compare(**SETTINGS[setting])
    assert ref.relative_error(got, want) < 1e-5
    # The skim term is a large part of the gradient, so the check has teeth.
    assert ref.relative_error(got, without) > 0.05
    # The logged loss includes the term; `skim_loss` logs it alone.
    assert history["loss"][0] == pytest.approx(task + skim, rel=1e-5)
    if len(parts["cells"]) == 1:
        assert history["skim_loss"][0] == pytest.approx(skim, rel=1e-5)


@pytest.fixture
def mixed_float16():
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        yield
    finally:
        keras.mixed_precision.set_global_policy("float32")


def test_mixed_float16_with_keras_loss_scaling(mixed_float16):
    # compile() wraps the optimizer in a LossScaleOptimizer (scale 2**15).
    got, want, without, task, skim, history, parts = _compare("last")
    assert parts["cells"][0].compute_dtype == "float16"
    assert ref.relative_error(got, want) < 5e-3
    assert ref.relative_error(got, without) > 0.05
    assert history["loss"][0] == pytest.approx(task + skim, rel=1e-3)
    assert history["skim_loss"][0] == pytest.approx(skim, rel=1e-3)
