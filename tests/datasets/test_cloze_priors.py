"""Cloze baselines that do not read (keras_skim.datasets.cloze_priors), on small hand-written questions."""

import pytest

from keras_skim.datasets.cloze_files import ClozeExample
from keras_skim.datasets.cloze_priors import (
    CandidatePrior,
    accuracy,
    chance,
    context_frequency,
    expected_hit,
    query_aware_frequency,
)

# "dog" occurs three times in the context, "cat" twice, "hat" once; the query still shows "cat".
EXAMPLE = ClozeExample(
    ("the dog saw a cat .", "the dog had a hat .", "a dog and a cat ."),
    "the cat chased the XXXXX .",
    "hat",
    ("cat", "dog", "hat"),
)


def test_context_frequency_counts_each_candidate_in_the_context():
    assert context_frequency(EXAMPLE) == [2, 3, 1]


def test_query_aware_frequency_rules_out_what_the_query_still_shows():
    assert query_aware_frequency(EXAMPLE) == [-1, 3, 1]


def test_expected_hit_shares_a_tie_among_the_top_candidates():
    assert expected_hit([2, 2, 1], 0) == pytest.approx(0.5)
    assert expected_hit([2, 2, 1], 2) == 0.0
    assert expected_hit([0, 0, 0, 0], 3) == pytest.approx(0.25)


def test_accuracy_of_frequency_is_zero_where_the_answer_is_rare():
    assert accuracy([EXAMPLE], context_frequency) == 0.0
    assert chance([EXAMPLE]) == pytest.approx(1 / 3)


def test_candidate_prior_learns_which_words_tend_to_be_answers():
    train = [
        ClozeExample(("a hat .",), "XXXXX", "hat", ("cat", "dog", "hat")),
        ClozeExample(("a hat .",), "XXXXX", "hat", ("dog", "hat", "sun")),
    ]
    prior = CandidatePrior().fit(train)
    scores = prior(EXAMPLE)
    assert scores.index(max(scores)) == 2
    assert accuracy([EXAMPLE], prior) == 1.0
    # A word never seen in training scores chance (1 in 10).
    unseen = ClozeExample(("x .",), "XXXXX", "moon", ("moon", "star"))
    assert prior(unseen) == pytest.approx([0.1, 0.1])


def test_accuracy_refuses_an_empty_set():
    with pytest.raises(ValueError, match="no questions"):
        accuracy([], context_frequency)
