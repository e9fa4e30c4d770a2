"""Flop-r of Structural-Jump-LSTM: the step counts of the notes (m=128,
d=300, a=25) and the two averages."""

import numpy as np
import pytest

from keras_skim.analysis.flops import rnn_step_flops
from keras_skim.models.structural_jump.structural_jump_flops import (
    structural_jump_flop_report,
    structural_jump_step_flops,
)


def test_step_flops_of_the_paper_sizes():
    step = structural_jump_step_flops(128, 300, 25)
    # 8 m (d_in + m) + 13 m with d_in = 306 (word + previous actions) and 300.
    assert step["lstm"] == 8 * 128 * 434 + 13 * 128 == 446_080
    assert step["baseline_lstm"] == 439_936 == rnn_step_flops("lstm", 128, 300)
    # 2 a (m + d_in) + 2a (bias, ReLU) + 2*2a + 2 + 1 argmax comparison.
    assert step["skip_agent"] == 2 * 25 * 434 + 50 + 100 + 2 + 1 == 21_853
    assert step["jump_agent"] == 2 * 25 * 128 + 50 + 200 + 4 + 3 == 6_657
    assert step["read_step"] == 446_080 + 6_657


def test_flop_r_corpus_level_and_per_document_mean():
    step = structural_jump_step_flops(16, 10, 5)
    n, visited, read = [10, 4, 0], [6, 4, 0], [3, 1, 0]
    report = structural_jump_flop_report(n, visited, read, 16, 10, 5)
    full = np.array(n) * step["baseline_lstm"]
    sj = np.array(visited) * step["skip_agent"] + np.array(read) * step["read_step"]
    assert report["flop_r"] == pytest.approx(full.sum() / sj.sum())
    # The empty document is left out of the mean, not counted as 0 or inf.
    assert report["flop_r_per_document_mean"] == pytest.approx(np.mean(full[:2] / sj[:2]))
    assert report["documents"] == 3


def test_reading_everything_costs_more_than_the_plain_lstm():
    report = structural_jump_flop_report([50], [50], [50], 128, 50)
    assert report["flop_r"] < 1.0


@pytest.mark.parametrize(
    "counts, message",
    [
        (([5], [6], [1]), "read <= visited <= word_count"),
        (([5], [4], [5]), "read <= visited"),
        (([5, 4], [4], [1]), "one entry per document"),
    ],
)
def test_inconsistent_counts_are_refused(counts, message):
    with pytest.raises(ValueError, match=message):
        structural_jump_flop_report(*counts, 8, 4)


def test_bad_sizes_are_refused():
    with pytest.raises(ValueError, match="units"):
        structural_jump_step_flops(0, 4)
