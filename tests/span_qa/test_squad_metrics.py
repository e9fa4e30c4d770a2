"""SQuAD v1.1 exact match and F1, against values computed by hand from the official script's definition."""

import pytest

from keras_skim.analysis.squad_metrics import exact_match, f1_score, normalize_answer, squad_scores


def test_normalisation_lowers_and_drops_punctuation_articles_and_extra_spaces():
    assert normalize_answer("The  Eiffel-Tower, in Paris!") == "eiffeltower in paris"
    assert normalize_answer("An apple a day") == "apple day"
    # "a" inside a word is kept: only whole-word articles go
    assert normalize_answer("Anthem of Theban") == "anthem of theban"


def test_exact_match_after_normalisation():
    assert exact_match("the Severn", "Severn") == 1.0
    assert exact_match("Severn river", "Severn") == 0.0


def test_f1_by_hand():
    # prediction "carbon dioxide" (2 tokens), truth "carbon dioxide and water" (4): common 2,
    # P = 1, R = 1/2, F1 = 2 * 1 * 0.5 / 1.5 = 2/3
    assert f1_score("carbon dioxide", "carbon dioxide and water") == pytest.approx(2 / 3)
    # repeated tokens count as a multiset: "a b b" vs "b b b c" (no article: "a" removed -> "b b"), common 2,
    # P = 2/2, R = 2/4, F1 = 2/3
    assert f1_score("a b b", "b b b c") == pytest.approx(2 / 3)
    assert f1_score("London", "Paris") == 0.0


def test_scores_take_the_best_ground_truth_and_count_missing_questions_as_zero():
    truths = {"q1": ["Thames Head in Gloucestershire", "Thames Head"], "q2": ["1440"], "q3": ["London"]}
    predictions = {"q1": "Thames Head", "q2": "around 1440"}
    scores = squad_scores(predictions, truths)
    # q1: EM 1, F1 1 (second truth); q2: EM 0, F1 = 2 * 0.5 * 1 / 1.5 = 2/3; q3 missing: 0
    assert scores["questions"] == 3
    assert scores["exact_match"] == pytest.approx(100 / 3)
    assert scores["f1"] == pytest.approx(100 * (1 + 2 / 3) / 3)
