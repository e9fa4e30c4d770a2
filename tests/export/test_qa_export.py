"""Export and runtime of the question-answering models (issue 33, item 5): `LSTMAttentionQA`, `BiDAF` and `ClozeQA`
(random weights, tiny sizes) exported from their model folders with the real converter and parity check, then
answered through the LiteRT runtime and held to the Keras model's own prediction, decoded the same way."""

import json

import numpy as np
import pytest

from keras_skim.cli.main import main
from keras_skim.cli.task_args import write_task_record

CONTEXT = (
    "The Thames is a river that flows through southern England, including London. It rises at Thames Head "
    "and flows into the North Sea."
)
QUESTION = "Through which city does the Thames flow?"
DOCUMENT = ["The little rabbit lived in a hole under the old oak tree .", "The fox found a garden full of carrots ."]
QUERY = "The rabbit loved XXXXX more than anything ."
CANDIDATES = ["carrots", "fox", "tree", "garden"]


def _tokenizer(*texts):
    from keras_skim.datasets.tokenizer import Tokenizer

    return Tokenizer().fit(list(texts))


def _span_folder(root, cells):
    """A saved `LSTMAttentionQA` folder of reading layers `cells`, as `train --task squad` writes it."""
    from keras_skim.models import LSTMAttentionQA

    folder = root / "run"
    folder.mkdir()
    tokenizer = _tokenizer(CONTEXT, QUESTION)
    model = LSTMAttentionQA(tokenizer.vocabulary_size, embedding_dim=6, units=5, small_units=2, cells=cells, seed=3)
    model((np.ones((1, 4), "int32"), np.ones((1, 2), "int32")))
    model.save(str(folder / "model.keras"))
    tokenizer.save(folder / "tokenizer.json")
    write_task_record(folder, {"task": "squad", "model": "lstm-attention", "context_length": 40})
    return folder, model, tokenizer


@pytest.fixture(scope="module")
def span_folder(tmp_path_factory):
    """A skim layer, then an LSTM layer."""
    return _span_folder(tmp_path_factory.mktemp("span"), ("skim-lstm", "lstm"))


@pytest.fixture(scope="module")
def span_export(span_folder):
    from keras_skim.export.exporter import export_model

    folder = span_folder[0]
    return export_model(str(folder), str(folder.parent / "export"), parity_samples=2)


@pytest.fixture(scope="module")
def cloze_export(tmp_path_factory):
    """A `ClozeQA` (skim reader) folder and its export."""
    from keras_skim.export.exporter import export_model
    from keras_skim.models import ClozeQA

    folder = tmp_path_factory.mktemp("cloze") / "run"
    folder.mkdir()
    tokenizer = _tokenizer(QUERY, *DOCUMENT)
    model = ClozeQA(
        tokenizer.vocabulary_size, cell="skim-lstm", embedding_dim=6, units=5, small_units=2, num_candidates=4, seed=1
    )
    model.save(str(folder / "model.keras"))
    tokenizer.save(folder / "tokenizer.json")
    (folder / "cloze_config.json").write_text(json.dumps({"config": {"max_length": 50}}), encoding="utf-8")
    write_task_record(folder, {"task": "cloze"})
    result = export_model(str(folder), str(folder.parent / "export"), parity_samples=2)
    return result, model, tokenizer


def test_span_export_is_parity_checked_and_says_its_task(span_export):
    meta = span_export.metadata
    assert span_export.parity.ok and span_export.parity.mismatched_decisions == 0
    assert meta.task["name"] == "squad" and meta.task["context_length"] == 40
    assert set(meta.inputs) == {"context_ids", "question_ids", "threshold"}
    assert {"start_logits", "end_logits", "read_mask", "read_mask_layer1_backward"} <= set(meta.outputs)
    assert len(meta.layers) == 2 and meta.backend == "builtin" and meta.custom_ops == []


def test_span_answer_is_the_keras_models_answer(span_folder, span_export):
    from keras_skim.datasets.squad import span_text, tokens_with_offsets
    from keras_skim.models.span_qa.span_qa_data import QUESTION_LENGTH, best_spans
    from keras_skim.models.span_qa.span_qa_show import reading_masks
    from keras_skim.runtime.runner import SkimRunner

    _, model, tokenizer = span_folder
    found = SkimRunner(span_export.output_dir).answer(CONTEXT, QUESTION)
    context_ids, question_ids = tokenizer.encode_one(CONTEXT, 40), tokenizer.encode_one(QUESTION, QUESTION_LENGTH)
    start, end, masks = reading_masks(model, context_ids, question_ids)
    first, last = best_spans(start[None], end[None])[0]
    offsets = tokens_with_offsets(CONTEXT)
    assert found.text == span_text(CONTEXT, offsets, first, last) == CONTEXT[found.start : found.end]
    assert (found.first_token, found.last_token) == (first, last)
    np.testing.assert_allclose(found.start_logits, start, atol=1e-4)
    for (index, direction), mask in found.read_masks.items():
        np.testing.assert_array_equal(mask, masks[(model.READERS[index], direction)])


def test_cloze_answer_is_the_keras_models_answer(cloze_export):
    from keras_skim.datasets.cloze_splits import encode_question
    from keras_skim.runtime.runner import SkimRunner

    result, model, tokenizer = cloze_export
    assert result.parity.ok and result.metadata.task["num_candidates"] == 4
    found = SkimRunner(result.output_dir).answer(DOCUMENT, QUERY, CANDIDATES)
    ids, candidates = encode_question(tokenizer, QUERY, " ".join(DOCUMENT), CANDIDATES)
    scores = np.asarray(model({"tokens": ids[None], "candidates": candidates[None]}))[0]
    expected = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
    np.testing.assert_allclose(found.probabilities, expected, atol=1e-4)
    assert found.answer == CANDIDATES[int(np.argmax(scores))] and found.read_mask.shape == (len(ids),)


def test_answer_refuses_the_wrong_number_of_candidates_and_classify_a_question_export(cloze_export):
    from keras_skim.runtime.runner import RuntimeModelError, SkimRunner

    runner = SkimRunner(cloze_export[0].output_dir)
    with pytest.raises(ValueError, match="takes 4 candidates; got 2"):
        runner.answer(DOCUMENT, QUERY, CANDIDATES[:2])
    with pytest.raises(RuntimeModelError, match="a cloze export takes token_ids, candidate_ids, not one text"):
        runner.classify(QUERY)


def test_a_bidaf_folder_exports_and_answers(tmp_path, capsys):
    from keras_skim.models import BiDAF
    from keras_skim.runtime.runner import SkimRunner

    folder = tmp_path / "run"
    folder.mkdir()
    tokenizer = _tokenizer(CONTEXT, QUESTION)
    model = BiDAF(tokenizer.vocabulary_size, embedding_dim=4, units=3, small_units=1, cells="skim-lstm", seed=2)
    model((np.ones((1, 4), "int32"), np.ones((1, 2), "int32")))
    model.save(str(folder / "model.keras"))
    tokenizer.save(folder / "tokenizer.json")
    write_task_record(folder, {"task": "squad", "model": "bidaf", "context_length": 40})
    assert main(["export", str(folder), "-o", str(tmp_path / "out"), "--parity-samples", "1"]) == 0
    assert "parity OK (against Keras)" in capsys.readouterr().out
    found = SkimRunner(tmp_path / "out").answer(CONTEXT, QUESTION)
    assert found.text == CONTEXT[found.start : found.end] and found.text
    assert set(found.read_masks) == {(layer, way) for layer in range(4) for way in ("forward", "backward")}


def test_a_span_export_refuses_the_custom_backend(span_folder, tmp_path, capsys):
    for option in (["--backend", "custom"], ["--quantize", "int8"]):
        assert main(["export", str(span_folder[0]), *option, "-o", str(tmp_path / "out")]) == 2
        err = capsys.readouterr().err
        assert "--backend builtin only" in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_answer_on_a_classifier_export_is_a_clear_error(exported):
    from keras_skim.runtime.runner import RuntimeModelError, SkimRunner

    with pytest.raises(RuntimeModelError, match="a text classifier export answers no question"):
        SkimRunner(exported("lstm")[1]).answer(CONTEXT, QUESTION)


def test_bench_times_a_span_export_against_the_lstm_one(span_export, tmp_path, capsys):
    from keras_skim.export.exporter import export_model

    folder, _, _ = _span_folder(tmp_path, ("lstm", "lstm"))
    baseline = export_model(str(folder), str(tmp_path / "lstm_export"), parity_samples=1)
    argv = ["bench", span_export.output_dir, "--baseline", baseline.output_dir, "--samples", "2", "--repeats", "1"]
    assert main([*argv, "-o", str(tmp_path / "report")]) == 0
    report = json.loads((tmp_path / "report" / "report.json").read_text(encoding="utf-8"))
    row = report["results"][0]
    assert report["data"] == "random token ids (context_ids 40, question_ids 30 tokens)"
    assert (
        row["speedup"] > 0
        and row["flop_r"] >= 1.0
        and set(row["layer_skim_rates"]) == set(span_export.metadata.read_masks)
    )


def test_bench_refuses_a_baseline_of_other_inputs(span_export, cloze_export, capsys):
    argv = ["bench", span_export.output_dir, "--baseline", cloze_export[0].output_dir, "--samples", "1"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "the baseline takes token_ids, candidate_ids, " in err and err.count("\n") == 1
