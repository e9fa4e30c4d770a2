"""`build_text_classifier` takes a `TextClassifierSpec`, or the spec's fields as keywords."""

import pytest

from keras_skim.models.text_classifier.text_classifier import TextClassifierSpec, build_text_classifier


def _layers(model):
    return [(layer.name, type(layer).__name__) for layer in model.layers]


def test_a_spec_and_its_keywords_build_the_same_model():
    spec = TextClassifierSpec(embedding_dim=8, units=6, small_units=2, dropout=0.1, seed=1, num_classes=3)
    from_spec = build_text_classifier("skim-lstm", 30, 12, spec)
    from_keywords = build_text_classifier(
        "skim-lstm", 30, 12, embedding_dim=8, units=6, small_units=2, dropout=0.1, seed=1, num_classes=3
    )
    assert _layers(from_spec) == _layers(from_keywords)
    assert _layers(from_spec)[-2:] == [("dropout", "Dropout"), ("logits", "Dense")]
    assert from_spec.outputs[0].shape[-1] == 3
    assert [tuple(w.shape) for w in from_spec.weights] == [tuple(w.shape) for w in from_keywords.weights]
    assert from_spec.get_layer("embedding").output_dim == 8


def test_a_spec_with_keywords_or_an_unknown_keyword_is_refused():
    with pytest.raises(TypeError, match="not both"):
        build_text_classifier("lstm", 30, 12, TextClassifierSpec(), units=4)
    with pytest.raises(TypeError):
        build_text_classifier("lstm", 30, 12, unit=4)


def test_two_classes_keep_one_logit():
    model = build_text_classifier("lstm", 30, 12, units=4, embedding_dim=4)
    assert model.outputs[0].shape[-1] == 1 and model.layers[-1].name == "logit"
