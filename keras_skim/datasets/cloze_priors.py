"""Readers of a cloze set that do not read: what its candidates alone give away.

A cloze set tests reading only where these baselines stay near chance (1 in 10 candidates). The Children's
Book Test paper (Hill et al., ICLR 2016, Table 2) reports such baselines beside its readers for the same
reason. Each baseline scores every candidate of a `cloze_files.ClozeExample`; accuracy counts a question
as the expected score of choosing uniformly among the top-scoring candidates (a tie between the answer and
two others counts 1/3), so no baseline wins by the candidates' alphabetical order.

- `context_frequency`: the candidate that occurs most often in the context (CBT's "maximum frequency
  (context)").
- `query_aware_frequency`: the same, but a candidate that is still written in the query scores lowest:
  a builder that removes every occurrence of the answer from the query (`cloze_builder`) leaves only
  wrong candidates there.
- `CandidatePrior`: sees the candidate words only (no context, no query): how often each word was the
  answer when it was offered, on the training questions.
"""

from __future__ import annotations

import collections

from keras_skim.datasets.cloze_files import NUM_CANDIDATES


def context_counts(example):
    """How often each token occurs in the example's context (tokens are split on spaces, as written)."""
    return collections.Counter(token for sentence in example.context for token in sentence.split())


def context_frequency(example):
    """Each candidate's count in the context."""
    counts = context_counts(example)
    return [counts[candidate] for candidate in example.candidates]


def query_aware_frequency(example):
    """`context_frequency`, with -1 for the candidates written in the query."""
    in_query = set(example.query.split())
    counts = context_frequency(example)
    return [-1 if candidate in in_query else count for candidate, count in zip(example.candidates, counts)]


class CandidatePrior:
    """A baseline that sees only the candidates: each word's share of the training questions that offered
    it in which it was the answer, smoothed towards chance.

    Args:
        strength: Pseudo-questions of the smoothing: a word offered n times and the answer k times
            scores (k + strength / NUM_CANDIDATES) / (n + strength); an unseen word scores 1 / NUM_CANDIDATES.

    Example:

    >>> from keras_skim.datasets.cloze_files import ClozeExample
    >>> train = [ClozeExample(("a film .",), "the XXXXX", "film", ("film", "plot"))]
    >>> prior = CandidatePrior().fit(train)
    >>> prior(train[0])[0] > prior(train[0])[1]
    True
    """

    def __init__(self, strength=1.0):
        self.strength = strength
        self.offered = collections.Counter()
        self.answered = collections.Counter()

    def fit(self, examples):
        """Counts the training `examples`' candidates and answers; returns self."""
        for example in examples:
            self.offered.update(example.candidates)
            self.answered[example.answer] += 1
        return self

    def __call__(self, example):
        """Each candidate's score."""
        base = self.strength / NUM_CANDIDATES
        return [(self.answered[c] + base) / (self.offered[c] + self.strength) for c in example.candidates]


def expected_hit(scores, answer_index):
    """1 / (number of top-scoring candidates) if the answer is among them, else 0."""
    best = max(scores)
    top = [index for index, score in enumerate(scores) if score == best]
    return 1.0 / len(top) if answer_index in top else 0.0


def accuracy(examples, scorer):
    """The mean `expected_hit` of `scorer` (a function of one example to its candidates' scores)."""
    if not examples:
        raise ValueError("no questions to score")
    return sum(expected_hit(scorer(example), example.answer_index) for example in examples) / len(examples)


def chance(examples):
    """The accuracy of a uniform guess among each question's candidates."""
    return accuracy(examples, lambda example: [0] * len(example.candidates))
