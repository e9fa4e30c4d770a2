"""Models on float sequences (`Input((T, F)) -> RNN(cell) -> Dense`, the
scoRNN paper's pixel MNIST at T=16, F=1): the real export (builtin graph,
TFLite converter), run by keras-skim's TF-free runtime (`run_sequence`, the
LiteRT interpreter) with parity against Keras; and the one-line refusals of
what export, show, evaluate and bench do not take."""

import json
import os

import numpy as np
import pytest

from tests.assertions import one_line
from tests.export.helpers import run_cli

T, F, N, K = 16, 1, 8, 3
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "android_demo", "app", "src", "main", "assets", "keras_skim")  # token-id exports


def _save(model, folder, name):
    path = os.path.join(folder, name)
    model.save(path)
    return path


def _scornn_model(seed=0):
    import keras

    from keras_skim import ScoRNNCell

    cell = ScoRNNCell(N, rho=2, seed=seed)
    model = keras.Sequential([keras.Input((T, F)), keras.layers.RNN(cell), keras.layers.Dense(K)])
    rng = np.random.default_rng(seed)
    for var in (cell.kernel, cell.skew_parameters, cell.bias):
        var.assign(rng.normal(scale=0.4, size=var.shape))
    cell.modrelu_bias.assign(rng.uniform(-0.3, 0.1, size=N))
    return model


def _skim_model():
    import keras

    from keras_skim import SkimLSTMCell

    return keras.Sequential(
        [keras.Input((T, F)), keras.layers.RNN(SkimLSTMCell(N, 2)), keras.layers.Dense(K, activation="softmax")]
    )


@pytest.fixture(scope="module")
def sequence_exports(tmp_path_factory):
    """{name: (Keras model, export folder, ExportResult)}: a scoRNN and a
    Skim-LSTM on [T, F] sequences, exported by the default (auto) backend."""
    from keras_skim.export.exporter import export_model

    root = str(tmp_path_factory.mktemp("sequences"))
    out = {}
    for name, model in (("scornn", _scornn_model()), ("skim", _skim_model())):
        path = _save(model, root, f"{name}.keras")
        folder = os.path.join(root, f"{name}_export")
        out[name] = (model, folder, export_model(path, folder))
    return out


def _sequences(count, seed=1):
    return np.random.default_rng(seed).standard_normal((count, T, F)).astype(np.float32)


def test_scornn_sequence_model_exports_and_matches_keras(sequence_exports):
    from keras_skim import contracts
    from keras_skim.runtime import SkimRunner

    model, folder, result = sequence_exports["scornn"]
    assert result.parity.ok and result.metadata.backend == "builtin"
    assert not result.notes  # a scoRNN is a keras-skim layer, and no tokenizer is expected
    with open(os.path.join(folder, contracts.METADATA_FILE)) as f:
        record = json.load(f)
    assert record["input_kind"] == "sequence" and record["feature_dim"] == F and record["max_length"] == T
    assert record["vocabulary_size"] is None and record["inputs"]["sequence"]["shape"] == [1, T, F]
    assert set(record["inputs"]) == {"sequence"}  # no threshold: a scoRNN does not skim
    assert "tokenizer.json" not in os.listdir(folder)

    runner = SkimRunner(folder)
    assert runner.takes_sequence and runner.kind.name == "scornn"
    x = _sequences(3)
    want = model.predict(x, verbose=0)
    batch = runner.run_sequence(x)
    assert batch["logits"].shape == (3, K) and batch["read_mask"].shape == (3, T)
    np.testing.assert_allclose(batch["logits"], want, atol=1e-5)
    assert (batch["read_mask"] == 1).all() and batch["read_count"].tolist() == [T] * 3
    for one in (x[1], x[1:2]):  # [T, F] and [1, T, F]: the signature's own outputs
        out = runner.run_sequence(one)
        assert out["logits"].shape == (1, K)
        np.testing.assert_array_equal(out["logits"][0], batch["logits"][1])


def test_skim_sequence_model_decides_as_keras(sequence_exports):
    from keras_skim.export.parity import apply_activation
    from keras_skim.export.sequence_graph import keras_reference
    from keras_skim.export.sequence_input import plan_sequence_model
    from keras_skim.models.skim_rnn.skim_controls import set_threshold
    from keras_skim.runtime import SkimRunner

    model, folder, result = sequence_exports["skim"]
    assert result.parity.ok and result.parity.thresholds[0] == pytest.approx(0.5)
    runner = SkimRunner(folder)
    assert runner.metadata.takes_threshold
    reference = keras_reference(model, plan_sequence_model(model))
    x = _sequences(2, seed=4)
    masks = set()
    for threshold in (0.0, 0.5, 0.9):
        set_threshold(model, threshold)
        out = runner.run_sequence(x, threshold)
        for i in range(2):
            probabilities, decisions = reference(x[i : i + 1], threshold)
            got = apply_activation(out["logits"][i], "softmax")
            np.testing.assert_allclose(got, np.asarray(probabilities)[0], atol=1e-5, rtol=0)
            np.testing.assert_array_equal(out["read_mask"][i], np.rint(np.asarray(decisions)).astype(np.int32))
            masks.add(int(out["read_count"][i]))
    assert len(masks) > 1  # the thresholds made different decisions


def test_run_sequence_refuses_what_the_export_cannot_take(sequence_exports):
    from keras_skim.runtime import SkimRunner
    from keras_skim.runtime.runner import RuntimeModelError

    runner = SkimRunner(sequence_exports["scornn"][1])
    bad = {
        "shape": np.zeros((T, F + 1), np.float32),
        "steps": np.zeros((T + 1, F), np.float32),
        "finite": np.full((T, F), np.nan, np.float32),
        "numbers": [["a"] * F] * T,
        "token ids": None,
    }
    for word, value in bad.items():
        with pytest.raises(RuntimeModelError, match=word) as err:
            runner.run_ids([1, 2]) if value is None else runner.run_sequence(value)
        one_line(str(err.value))
    with pytest.raises(RuntimeModelError, match="float sequences") as err:
        SkimRunner(os.path.join(DEMO, "lstm_builtin")).run_sequence(np.zeros((T, F)))
    one_line(str(err.value))


def test_custom_backend_refuses_sequences_in_one_line(sequence_exports, tmp_path):
    model = sequence_exports["skim"][0]
    path = _save(model, str(tmp_path), "skim.keras")
    code, _, err = run_cli(["export", path, "--backend", "custom", "-o", str(tmp_path / "out")])
    assert code == 2 and "token ids, not float sequences" in one_line(err)
    assert not os.path.exists(tmp_path / "out")


def test_cli_refuses_models_it_cannot_take_in_one_line(sequence_exports, tmp_path):
    import keras

    folder = str(tmp_path)
    model = sequence_exports["scornn"][0]
    path = _save(model, folder, "scornn.keras")
    code, _, err = run_cli(["show", path, "--text", "a text"])
    assert code == 2 and "float sequences" in one_line(err) and "run_sequence" in err
    code, _, err = run_cli(["evaluate", path, "--data", "rotten_tomatoes"])
    assert code == 2 and "float sequences" in one_line(err)
    code, _, err = run_cli(["bench", sequence_exports["scornn"][1]])
    assert code == 2 and "float sequences" in one_line(err)

    text = keras.Input((1,), dtype="string")
    vectorize = keras.layers.TextVectorization(max_tokens=20, output_sequence_length=T)
    vectorize.adapt(["a small text", "another text"])
    x = keras.layers.Embedding(20, 4)(vectorize(text))
    vectorized = keras.Model(text, keras.layers.Dense(2)(keras.layers.LSTM(4)(x)))
    no_rnn = keras.Sequential([keras.Input((T, F)), keras.layers.Flatten(), keras.layers.Dense(2)])
    for name, bad, words in (
        ("vectorized.keras", vectorized, ("TextVectorization", "keras-skim's tokenizer")),
        ("no_rnn.keras", no_rnn, ("Flatten", "export takes token ids", "float sequences")),
    ):
        out = os.path.join(folder, name + "_out")
        code, _, err = run_cli(["export", _save(bad, folder, name), "-o", out])
        assert code == 2, err
        line = one_line(err)
        assert all(word in line for word in words), line
        assert not os.path.exists(out)
