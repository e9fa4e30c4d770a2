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

COMMA, PERIOD, QUOTE = 2, 3, 4
V, E, M, A = 40, 6, 12, 6


def _model(seed, skip_bias=(0.0, 0.0), jump_bias=(1.0, 0.5, 0.5, -0.5)):
    """A small Structural-Jump-LSTM with random weights whose agents both
    skip and jump (the biases steer them)."""
    from keras_skim import StructuralJumpLSTM

    model = StructuralJumpLSTM(
        V,
        separator_ids=[COMMA],
        sentence_end_ids=[PERIOD],
        other_punctuation_ids=[QUOTE],
        units=M,
        agent_units=A,
        embedding_dim=E,
        seed=seed,
    )
    rs = np.random.RandomState(seed)
    for v in model.trainable_weights:
        v.assign(rs.normal(0, 0.5, v.shape).astype("float32"))
    model.cell.skip_policy.bias.assign(list(skip_bias))
    model.cell.jump_policy.bias.assign(list(jump_bias))
    return model


def _texts():
    """Sentences, sub-sentences, punctuation runs, padding, one word, and a
    long noisy text."""
    rs = np.random.RandomState(3)
    noisy = rs.randint(5, V, 90)
    marks = rs.rand(90) < 0.25
    noisy[marks] = rs.choice([COMMA, PERIOD, QUOTE, 0], size=int(marks.sum()))
    return [
        np.asarray(t, np.int32)
        for t in (
            [9, 20, COMMA, 21, 22, PERIOD, 23, 24, COMMA, 25, PERIOD],
            [QUOTE, 0, PERIOD, 9, 10, 0, COMMA, 11, PERIOD, PERIOD, 12, 0],
            [7],
            noisy,
        )
    ]


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
    from keras_skim.export.structural_jump_op import dequantized_op_inputs, quantized_op_inputs

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


def test_numpy_reference_is_the_keras_greedy_pass():
    from keras_skim.export.model_plan import plan_model
    from keras_skim.export.structural_jump_op import quantized_op_inputs
    from keras_skim.export.structural_jump_op_reference import op_reference
    from keras_skim.export.structural_jump_parity import structural_jump_reference

    model = _model(seed=2)
    plan = plan_model(model)
    keras_pass = structural_jump_reference(model)
    for fold in (False, True):
        inputs = quantized_op_inputs(plan.emitter, fold=fold)
        for ids in _texts():
            logits, codes = op_reference(inputs, A, plan.head, ids)
            want_logits, want_codes = keras_pass(ids[None])
            np.testing.assert_array_equal(codes, want_codes)
            np.testing.assert_allclose(logits, want_logits, atol=1e-5)


@pytest.mark.parametrize("simd", ["avx512", "avx2", "sse", "generic"])
def test_int8_op_runs_its_dequantized_weights_in_every_instruction_set(op_cache, monkeypatch, simd):
    """Every decision and the logits within 1e-4 of the reference (an
    instruction set the CPU lacks falls back to one it has)."""
    from keras_skim.export.exporter import _runner, backends
    from keras_skim.export.model_plan import plan_model
    from keras_skim.export.parity import check_parity

    monkeypatch.setenv("KERAS_SKIM_SIMD", simd)
    model = _model(seed=5, skip_bias=(0.3, -0.3))
    plan = plan_model(model)
    custom = backends()["custom"]
    for fold in (False, True):
        flatbuffer = custom.flatbuffer(model, plan, threshold=None, length=None, fold=fold, quantize="int8")
        reference, against = custom.parity_reference(model, flatbuffer)
        result = check_parity(model, plan, _runner(flatbuffer, plan), _texts(), [None], reference, against)
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


def test_op_refuses_scales_of_the_wrong_size_in_one_line(op_cache, monkeypatch):
    from keras_skim.export import structural_jump_op
    from keras_skim.export.exporter import _runner, backends
    from keras_skim.export.model_plan import plan_model

    quantized = structural_jump_op.quantized_op_inputs

    def short_scales(*args, **kwargs):
        inputs = quantized(*args, **kwargs)
        inputs["rows_scale"] = inputs["rows_scale"][:-1]
        return inputs

    monkeypatch.setattr(structural_jump_op, "quantized_op_inputs", short_scales)
    model = _model(seed=1)
    plan = plan_model(model)
    flatbuffer = backends()["custom"].flatbuffer(model, plan, threshold=None, length=None, quantize="int8")
    with pytest.raises(Exception) as err:
        _runner(flatbuffer, plan)(_texts()[0][None], 0.0)
    assert "rows_scale" in str(err.value) or "2 * s->V" in str(err.value), str(err.value)
