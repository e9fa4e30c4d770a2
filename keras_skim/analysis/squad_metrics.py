"""SQuAD v1.1's exact match and F1, as its official evaluation script defines them.

An answer and a ground truth are compared after normalisation: lower case,
punctuation (Python's `string.punctuation`) removed, the articles "a", "an"
and "the" removed as whole words, and runs of whitespace made single spaces.
Exact match is 1 when the normalised strings are equal. F1 is over the
normalised tokens (split on whitespace): with `common` the size of the
multiset intersection, precision = common / predicted tokens, recall =
common / ground-truth tokens, F1 = 2 P R / (P + R), and 0 when nothing is in
common. A question's score is the best over its ground truths; a data set's
is the mean over its questions, in percent.
"""

import collections
import re
import string

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = frozenset(string.punctuation)


def normalize_answer(text):
    """Lower case, no punctuation, no articles, single spaces (the order of the official script)."""
    text = "".join(character for character in text.lower() if character not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(prediction, ground_truth):
    """1.0 when the normalised texts are equal, else 0.0."""
    return float(normalize_answer(prediction) == normalize_answer(ground_truth))


def f1_score(prediction, ground_truth):
    """Token F1 of the normalised texts (0.0 with no token in common)."""
    predicted, truth = normalize_answer(prediction).split(), normalize_answer(ground_truth).split()
    common = sum((collections.Counter(predicted) & collections.Counter(truth)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(truth)
    return 2 * precision * recall / (precision + recall)


def best_over_ground_truths(metric, prediction, ground_truths):
    """The best `metric(prediction, truth)` over a question's ground truths."""
    return max(metric(prediction, truth) for truth in ground_truths)


def squad_scores(predictions, ground_truths):
    """{"exact_match", "f1"} in percent, and "questions": the mean over
    questions of the best score over each one's ground truths.

    Args:
        predictions: {question id: predicted text}.
        ground_truths: {question id: [answer texts]}; a question missing
            from `predictions` scores 0 (as in the official script).
    """
    if not ground_truths:
        raise ValueError("no questions to score")
    exact = f1 = 0.0
    for question, truths in ground_truths.items():
        if question in predictions and truths:
            exact += best_over_ground_truths(exact_match, predictions[question], truths)
            f1 += best_over_ground_truths(f1_score, predictions[question], truths)
    count = len(ground_truths)
    return {"exact_match": 100.0 * exact / count, "f1": 100.0 * f1 / count, "questions": count}
