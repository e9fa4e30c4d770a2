"""int8 weights in the Structural-Jump-LSTM op (`--quantize int8`, custom
backend): the packed inputs and their scales on hand-made values, the op's
NumPy reference (structural_jump_op_reference.py) against the Keras greedy
pass, the op against that reference on its dequantized weights in every
instruction set, a real trained model's int8 export through the exporter's
parity check, and bad input in one line."""

import types

import numpy as np
import pytest

from tests.assertions import one_line


@pytest.fixture(scope="module")
def model(trained_folder):
    """The session's tiny trained Structural-Jump-LSTM (its agents read,
    skip and jump)."""
    import os

    from keras_skim.model_io import load_model

    return load_model(os.path.join(trained_folder("sj"), "model.keras"))


def _texts(plan, count=8):
    """Random texts of several lengths, about a fifth punctuation (so the
    jumps land) and some padding, as the exporter's parity check draws them."""
    from keras_skim.export.parity import sample_sequences

    punctuation = sorted(i for ids in plan.structure.values() for i in ids)
    return sample_sequences(plan.vocabulary_size, count, seed=3, padding_id=0, punctuation_ids=punctuation)


def _emitter(rows_agent, rows_word, kernel):
    """The parts of an emitter that `quantized_op_inputs` reads, hand-made:
    V = 2 ids, a = 2, e = 2, m = 1."""
    z = np.zeros
    return types.SimpleNamespace(
        agent_units=2,
        speed_reading=True,
        kinds=np.zeros(2, np.int8),
        skip_rows=np.asarray(rows_agent, np.float64),
        embedding=np.asarray(rows_word, np.float64),
        lstm_input=np.asarray(kernel, np.float64)[:2],
        lstm_recurrent=np.asarray(kernel, np.float64)[2:],
        skip_previous=z((5, 2)),
        lstm_previous=z((5, 4)),
        skip_recurrent=z((1, 2)),
        skip_head=z(2),
        skip_head_bias=0.0,
        jump_kernel=z((1, 2)),
        jump_bias=z(2),
        jump_head=z((2, 4)),
        jump_head_bias=z(4),
    )


def test_rows_get_a_scale_per_part_and_the_kernel_a_scale_per_column():
    from keras_skim.models.structural_jump.structural_jump_op import dequantized_op_inputs, quantized_op_inputs

    kernel = [[1.0, -2.0, 0.5, 0.0], [0.3, 1.2, -0.2, 0.0], [-1.0, 0.6, 0.1, 0.0]]
    emitter = _emitter([[0.5, -0.2], [0.0, 0.0]], [[3.0, -1.0], [-0.1, 0.4]], kernel)
    inputs = quantized_op_inputs(emitter, quantize="int8")
    # Each part of a row is quantized on its own range: the agent's small
    # terms keep their precision beside a large embedding.
    assert inputs["rows"].dtype == np.int8 and inputs["rows"].tolist() == [[127, -51, 127, -42], [0, 0, -32, 127]]
    np.testing.assert_allclose(inputs["rows_scale"], [[0.5 / 127, 3.0 / 127], [1.0, 0.4 / 127]], rtol=1e-6)
    assert inputs["kernel"].tolist() == [[127, -127, 127, 0], [38, 76, -51, 0], [-127, 38, 25, 0]]
    np.testing.assert_allclose(inputs["kernel_scale"], [1 / 127, 2 / 127, 0.5 / 127, 1.0], rtol=1e-6)
    rows, kernel_back = dequantized_op_inputs(inputs, 2)
    want = [[0.5, -51 * 0.5 / 127, 3.0, -42 * 3.0 / 127], [0.0, 0.0, -32 * 0.4 / 127, 0.4]]
    np.testing.assert_allclose(rows, want, rtol=1e-6)
    np.testing.assert_allclose(kernel_back[1], [38 / 127, 76 * 2 / 127, -51 * 0.5 / 127, 0.0], rtol=1e-6)
    # float32 inputs are the ones they were, without scales (the op's ten inputs)
    floats = quantized_op_inputs(emitter)
    assert floats["rows"].dtype == np.float32 and "rows_scale" not in floats and "kernel_scale" not in floats


def test_numpy_reference_is_the_keras_greedy_pass(model):
    from keras_skim.export.plan import plan_model
    from keras_skim.models.structural_jump.structural_jump_op import quantized_op_inputs
    from keras_skim.models.structural_jump.structural_jump_op_reference import op_reference
    from keras_skim.models.structural_jump.structural_jump_parity import structural_jump_reference

    plan = plan_model(model)
    keras_pass = structural_jump_reference(model)
    texts = _texts(plan)
    wants = [keras_pass(ids[None]) for ids in texts]
    codes_seen = set()
    for fold in (False, True):
        inputs = quantized_op_inputs(plan.emitter, fold=fold)
        for ids, (want_logits, want_codes) in zip(texts, wants):
            logits, codes = op_reference(inputs, plan.emitter.agent_units, plan.head, ids)
            np.testing.assert_array_equal(codes, want_codes)
            np.testing.assert_allclose(logits, want_logits, atol=1e-5)
            codes_seen |= set(codes.tolist())
    assert codes_seen == {0, 1, 2, 3}  # read, skipped, jumped and not a word all checked


@pytest.mark.parametrize("simd", ["avx512", "avx2", "sse", "generic"])
def test_int8_op_runs_its_dequantized_weights_in_every_instruction_set(op_cache, model, monkeypatch, simd):
    """Every decision and the logits within 1e-4 of the reference (an
    instruction set the CPU lacks falls back to one it has)."""
    from keras_skim.export.exporter import _runner, backends
    from keras_skim.export.parity import check_parity
    from keras_skim.export.plan import plan_model

    monkeypatch.setenv("KERAS_SKIM_SIMD", simd)
    plan = plan_model(model)
    custom = backends()["custom"]
    for fold in (False, True):
        flatbuffer = custom.flatbuffer(model, plan, threshold=None, length=None, fold=fold, quantize="int8")
        reference, against = custom.parity_reference(model, plan, flatbuffer)
        result = check_parity(model, plan, _runner(flatbuffer, plan), _texts(plan), [None], reference, against)
        assert result.ok and result.decisions > 100, result.message
        assert against == "its dequantized weights"


def test_trained_model_int8_export_passes_parity_and_is_smaller(trained_folder, custom_exported, tmp_path, op_cache):
    import json
    import os

    from keras_skim.export.exporter import export_model
    from keras_skim.runtime.tflite_check import op_inventory
    from tests.tiny_data import use_tiny_rotten_tomatoes

    float_folder = custom_exported("sj")
    (tmp_path / "data").mkdir()
    with pytest.MonkeyPatch.context() as patch:
        use_tiny_rotten_tomatoes(patch, tmp_path / "data")
        result = export_model(trained_folder("sj"), str(tmp_path / "int8"), backend="custom", quantize="int8")
    assert result.parity.ok and result.parity.mismatched_decisions == 0, result.parity.message
    meta = json.load(open(tmp_path / "int8" / "metadata.json"))
    assert meta["quantize"] == "int8" and meta["backend"] == "custom"
    assert meta["parity"]["against"] == "its dequantized weights" and meta["parity"]["real_texts"] >= 1
    assert meta["tflite_ops"] == ["CUSTOM:KerasSjLSTM", "FULLY_CONNECTED"]
    data = open(tmp_path / "int8" / "model.tflite", "rb").read()
    assert sorted(op_inventory(data)) and len(data) < 0.6 * os.path.getsize(os.path.join(float_folder, "model.tflite"))


def test_builtin_int8_is_refused_in_one_line(trained_folder, tmp_path):
    from keras_skim.export.errors import ExportError
    from keras_skim.export.exporter import export_model

    with pytest.raises(ExportError) as err:
        export_model(trained_folder("sj"), str(tmp_path / "out"), backend="builtin", quantize="int8")
    message = one_line(str(err.value))
    assert "--backend builtin" in message and "--backend custom" in message
    assert not (tmp_path / "out").exists()


def test_op_refuses_scales_of_the_wrong_size(op_cache, model, monkeypatch):
    from keras_skim.export.exporter import _runner, backends
    from keras_skim.export.plan import plan_model
    from keras_skim.models.structural_jump import structural_jump_op

    quantized = structural_jump_op.quantized_op_inputs

    def short_scales(*args, **kwargs):
        inputs = quantized(*args, **kwargs)
        inputs["rows_scale"] = inputs["rows_scale"][:-1]
        return inputs

    monkeypatch.setattr(structural_jump_op, "quantized_op_inputs", short_scales)
    plan = plan_model(model)
    flatbuffer = backends()["custom"].flatbuffer(model, plan, threshold=None, length=None, quantize="int8")
    with pytest.raises(Exception) as err:
        _runner(flatbuffer, plan)(_texts(plan)[0][None], 0.0)
    assert "rows_scale" in str(err.value) or "2 * s->V" in str(err.value), str(err.value)
