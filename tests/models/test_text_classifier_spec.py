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


def test_word_vectors_are_weights_not_config_and_draw_no_random_numbers(tmp_path):
    # The GloVe matrix used to be the Embedding's Constant initializer, written into config.json as
    # JSON digits; it is now assigned as the layer's weights.
    import json
    import zipfile

    import keras
    import numpy as np

    matrix = np.random.default_rng(0).normal(size=(300, 8)).astype("float32")
    keras.utils.set_random_seed(3)
    model = build_text_classifier("lstm", 300, 12, units=4, embedding_dim=8, embedding_matrix=matrix)
    np.testing.assert_array_equal(model.get_layer("embedding").get_weights()[0], matrix)
    path = tmp_path / "model.keras"
    model.save(path)
    with zipfile.ZipFile(path) as archive:
        config = archive.read("config.json")
    assert len(config) < 20_000, len(config)
    assert json.loads(config)["config"]["layers"][1]["config"]["embeddings_initializer"]["class_name"] == "Zeros"
    loaded = keras.saving.load_model(path)
    np.testing.assert_array_equal(loaded.get_layer("embedding").get_weights()[0], matrix)
    # The layers after the embedding start from the weights that the Constant initializer gave them.
    keras.utils.set_random_seed(3)
    inputs = keras.Input((12,), dtype="int32")
    keras.layers.Embedding(300, 8, mask_zero=True, embeddings_initializer=keras.initializers.Constant(matrix))(inputs)
    reference = keras.layers.LSTM(4)
    reference(keras.ops.zeros((1, 12, 8)))
    for ours, theirs in zip(model.get_layer("lstm").get_weights(), reference.get_weights(), strict=True):
        np.testing.assert_array_equal(ours, theirs)
