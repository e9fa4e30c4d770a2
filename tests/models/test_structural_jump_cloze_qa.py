"""`keras_skim.models.StructuralJumpClozeQA`: the query is always read, the scores are e(c).(W h) of a NumPy
LSTM over the query, `.keras` round trip, and `keras-skim train/evaluate --task cloze --model sj-lstm`."""

import pathlib

import numpy as np
import pytest

keras = pytest.importorskip("keras")

from keras_skim.cli.main import main  # noqa: E402
from keras_skim.models import StructuralJumpClozeQA  # noqa: E402
from keras_skim.models.structural_jump.structural_jump_cloze_qa import pack_cloze_ids  # noqa: E402
from keras_skim.models.structural_jump.structural_jump_lstm_cell import (  # noqa: E402
    READ,
    SKIP,
    TRACE_ACTIVE,
    TRACE_READ,
)

STORY = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "cloze" / "story_CN_train.txt"
SEPARATOR, SENTENCE_END = 2, 3


def _model(**options):
    return StructuralJumpClozeQA(
        40,
        separator_ids=[SEPARATOR],
        sentence_end_ids=[SENTENCE_END],
        num_candidates=4,
        query_length=6,
        embedding_dim=5,
        units=7,
        agent_units=3,
        embedding_dropout=0.0,
        output_dropout=0.0,
        seed=1,
        **options,
    )


def _ids(document_words=True):
    """Two questions: the queries (with punctuation and padding), the documents, the candidates."""
    query = np.array([[5, 6, SEPARATOR, 7, SENTENCE_END, 0], [8, 9, 10, 11, 12, SENTENCE_END]], np.int32)
    document = np.array([[13, 14, SEPARATOR, 15, SENTENCE_END, 16, 17, 0], [18, 19, 20, SENTENCE_END, 21, 0, 0, 0]])
    if not document_words:
        document = np.zeros_like(document)
    candidates = np.array([[13, 15, 6, 30], [21, 8, 33, 34]], np.int32)
    return pack_cloze_ids(candidates, query, document)


def _always_skip(model):
    """Agent weights that make SKIP certain: a read would be the query's forced one."""
    policy = model.cell.skip_policy
    policy.kernel.assign(np.zeros(policy.kernel.shape, np.float32))
    bias = np.zeros(2, np.float32)
    bias[SKIP], bias[READ] = 50.0, -50.0
    policy.bias.assign(bias)


def _numpy_scores(model, ids):
    """e(c) . (W h) with h a NumPy LSTM over the query's words, input [x; onehot(READ); onehot(NEXT)]."""
    kernel, recurrent, bias = (w.numpy() for w in model.cell.lstm.weights)
    embeddings = model.embedding.embeddings.numpy()
    projection = model.answer_projection.kernel.numpy()
    scores = []
    for row in ids:
        candidates, query = row[:4], row[4:10]
        h = c = np.zeros(model.units)
        for word in query[(query != 0) & (query != SEPARATOR) & (query != SENTENCE_END)]:
            x = np.concatenate([embeddings[word], [0.0, 1.0], [1.0, 0.0, 0.0, 0.0]])
            z = x @ kernel + h @ recurrent + bias
            i, f, g, o = np.split(z, 4)
            c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
            h = _sigmoid(o) * np.tanh(c)
        scores.append(embeddings[candidates] @ (h @ projection))
    return np.array(scores)


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


@pytest.mark.parametrize("training", [False, True])
def test_the_query_is_read_whatever_the_agents_say(training):
    model = _model()
    _always_skip(model)
    out = model(_ids(), training=training)
    trace = np.asarray(out["trace"])
    np.testing.assert_array_equal(np.asarray(out["word_count"]), [5, 4])  # the documents' words only
    # The agents skip every document word (sampling too: a 100-nat margin) ...
    assert trace[..., TRACE_READ].sum() == 0 and trace[..., TRACE_ACTIVE].sum() == 9
    # ... yet the answer comes from the fully read query: the state an all-skipped document leaves.
    np.testing.assert_allclose(np.asarray(out["logits"]), _numpy_scores(model, _ids()), rtol=1e-4, atol=1e-5)


def test_the_scores_match_numpy_without_a_document():
    model = _model()
    ids = _ids(document_words=False)
    logits = np.asarray(model(ids)["logits"])
    np.testing.assert_allclose(logits, _numpy_scores(model, ids), rtol=1e-4, atol=1e-5)


def test_the_document_is_read_after_the_query():
    # A reader that reads every word ends elsewhere than the query's state: the document counts.
    model = _model(speed_reading=False)
    out = model(_ids())
    assert np.asarray(out["trace"])[..., TRACE_READ].sum() == 9
    assert not np.allclose(np.asarray(out["logits"]), _numpy_scores(model, _ids()), atol=1e-4)


def test_the_keras_file_round_trip(tmp_path):
    model = _model()
    ids = _ids()
    model.save(tmp_path / "m.keras")
    loaded = keras.saving.load_model(tmp_path / "m.keras")
    assert type(loaded) is StructuralJumpClozeQA and loaded.get_config() == model.get_config()
    expected, found = model.predict(ids, verbose=0), loaded.predict(ids, verbose=0)
    assert set(found) == set(expected)
    for name, value in expected.items():
        np.testing.assert_array_equal(value, found[name])


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="num_candidates"):
        StructuralJumpClozeQA(40, [2], [3], num_candidates=1)
    with pytest.raises(ValueError, match="not `num_classes`"):
        StructuralJumpClozeQA(40, [2], [3], num_classes=3)


def test_train_and_evaluate_on_a_cbt_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("KERAS_SKIM_CACHE", str(tmp_path / "cache"))  # the run's checkpoint stays in tmp_path
    out = tmp_path / "sj"
    steps = ["--full-read-steps", "1", "--speed-read-steps", "1", "--validate-every", "1"]
    common = ["--data", str(STORY), "--units", "6", "--agent-units", "3", "--batch-size", "4", "--no-glove"]
    args = ["train", "--task", "cloze", "--model", "sj-lstm", *common, *steps, "--quiet", "-o", str(out)]
    assert main(args) == 0
    assert "test accuracy" in capsys.readouterr().out
    assert len(list((tmp_path / "cache" / "runs").iterdir())) == 1  # resumable: its checkpoint
    assert '"model": "sj-lstm"' in (out / "task.json").read_text()
    assert main(["evaluate", str(out), "--split", "all"]) == 0
    printed = capsys.readouterr().out
    assert "10 questions" in printed and "accuracy" in printed
    assert all(f"{name} " in printed for name in ("read", "skip", "jump"))
    # The export (parity-checked against Keras on the way) answers without TensorFlow, as a cloze export does.
    assert main(["export", str(out), "-o", str(tmp_path / "sj_tflite")]) == 0
    assert "parity OK" in capsys.readouterr().out
    from keras_skim.runtime import SkimRunner

    runner = SkimRunner(str(tmp_path / "sj_tflite"))
    assert runner.metadata.task["model"] == "sj-lstm" and runner.metadata.model_kind == "structural_jump_lstm"
    document = "The mill stood by the river , and the king rode past it one day ."
    candidates = ["king", "river", "mill", "day", "gold", "straw", "room", "wheel", "door", "girl"]
    answer = runner.answer(document, "The XXXXX loved gold more than anything .", candidates)
    assert answer.answer == candidates[answer.index] and answer.probabilities.sum() == pytest.approx(1.0)
    assert len(answer.read_mask) == len(runner.tokenizer.encode_one(document).nonzero()[0])
    assert set(answer.read_mask.tolist()) <= {0, 1, 2, 3} and 3 in answer.read_mask  # "," and "." are not words
    with pytest.raises(ValueError, match="takes no threshold"):
        runner.answer(document, "The XXXXX loved gold .", candidates, threshold=0.5)
    with pytest.raises(ValueError, match="takes 10 candidates"):
        runner.answer(document, "The XXXXX loved gold .", candidates[:3])
    # timed as a phone runs it: random ids of the recorded lengths for all three inputs
    assert main(["bench", str(tmp_path / "sj_tflite"), "--samples", "3", "--repeats", "1"]) == 0
    assert "tokens" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--epochs", "2"], "--epochs does not apply to --task cloze"),
        (["--small-units", "2"], "--small-units does not apply to --task cloze"),
        (["--freeze-embedding"], "--freeze-embedding does not apply to --task cloze"),
        (["--full-read-epochs", "2"], "--full-read-epochs does not apply to --task cloze"),
        (
            ["--cell", "lstm"],
            "--cell lstm does not apply to --task cloze --model sj-lstm (a Structural-Jump-LSTM reader)",
        ),
        (["--validate-every", "0"], "--validate-every must be at least 1"),
    ],
)
def test_bad_options_are_one_line(tmp_path, capsys, extra, message):
    args = ["train", "--task", "cloze", "--model", "sj-lstm", "--data", str(STORY), *extra]
    assert main([*args, "-o", str(tmp_path / "x")]) == 2
    assert capsys.readouterr().err.strip() == f"keras-skim train: error: {message}"
    assert not (tmp_path / "x").exists()
