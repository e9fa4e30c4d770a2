"""Export of ScoRNNCell models: W formed once, a plain RNN of builtin ops,
parity with Keras."""

import os

import numpy as np
import pytest

V, E, D, RHO = 40, 6, 10, 3


def _model(units=D, use_bias=True, seed=0):
    import keras

    from keras_skim.models.scornn.scornn_cell import ScoRNNCell

    inp = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(V, E, mask_zero=True)(inp)
    cell = ScoRNNCell(units, rho=RHO, use_bias=use_bias, seed=seed)
    x = keras.layers.RNN(cell)(x)
    x = keras.layers.Dropout(0.1)(x)
    model = keras.Model(inp, keras.layers.Dense(3, activation="softmax")(x))
    # Non-trivial weights, so that A, U, b and b_mod all matter; b_mod
    # mostly negative so that the modReLU zeroes some units.
    rng = np.random.default_rng(seed)
    for var in (cell.kernel, cell.skew_parameters) + ((cell.bias,) if use_bias else ()):
        var.assign(rng.normal(scale=0.4, size=var.shape))
    cell.modrelu_bias.assign(rng.uniform(-0.3, 0.1, size=units))
    return model, cell


def _export_graph(model):
    from keras_skim.export.graph_builder import build_module, convert
    from keras_skim.export.plan import plan_model

    plan = plan_model(model)
    return plan, convert(build_module(plan))


def _runner(flatbuffer):
    from keras_skim.contracts import SIGNATURE_KEY
    from keras_skim.runtime.interpreter_loader import make_interpreter

    signature = make_interpreter(model_content=flatbuffer, num_threads=1).get_signature_runner(SIGNATURE_KEY)
    # A scoRNN export takes no `threshold` (nothing skims): token ids only.
    return lambda ids, threshold: signature(token_ids=np.asarray(ids, np.int32))


def test_emitter_forms_orthogonal_w_matching_the_cell():
    from keras import ops

    from keras_skim.export.emitter_registry import emitter_for

    _, cell = _model()
    emitter = emitter_for(cell)
    assert emitter is not None and emitter.model_kind == "scornn" and not emitter.skims
    w = emitter.recurrent
    np.testing.assert_allclose(w.T @ w, np.eye(D), atol=1e-12)
    assert np.isclose(np.linalg.det(w), (-1.0) ** RHO)
    np.testing.assert_allclose(w, ops.convert_to_numpy(cell.recurrent_matrix()), atol=1e-5)


@pytest.mark.parametrize("use_bias", [True, False])
def test_parity_with_keras_and_builtin_ops(use_bias):
    from keras_skim.export.parity import check_parity, sample_sequences
    from keras_skim.runtime.tflite_check import non_builtin_ops, op_inventory

    model, _ = _model(use_bias=use_bias)
    plan, flatbuffer = _export_graph(model)
    assert non_builtin_ops(flatbuffer) == []
    inventory = op_inventory(flatbuffer)
    flat = [op for subgraph in inventory.values() for op in subgraph]
    assert "WHILE" in flat and "FULLY_CONNECTED" in flat and "IF" not in flat
    # W is a constant: no matrix solve or inverse anywhere in the graph
    assert not [op for op in flat if "MATRIX" in op or "SOLVE" in op or "INVERSE" in op]
    bodies = [set(ops) for name, ops in inventory.items() if "body" in name]
    # (the RELU may be fused into the ADD before it)
    assert any({"FULLY_CONNECTED", "SIGN", "ABS", "MUL"} <= body for body in bodies)

    sequences = sample_sequences(V, 6)
    parity = check_parity(model, plan, _runner(flatbuffer), sequences, [None])
    assert parity.ok, parity.message
    assert parity.max_abs_diff < 1e-4


def test_parity_of_logits_on_long_sequence():
    """Pre-activation logits of the TFLite graph vs the Keras model's."""
    import keras

    model, _ = _model(units=16, seed=3)
    _, flatbuffer = _export_graph(model)
    ids = np.random.default_rng(5).integers(1, V, size=(1, 200)).astype(np.int32)
    logits = np.asarray(_runner(flatbuffer)(ids, 0.0)["logits"], np.float64)
    hidden = keras.Model(model.inputs, model.layers[-1].input)(ids)
    dense = model.layers[-1]
    expected = keras.ops.convert_to_numpy(hidden @ dense.kernel + dense.bias)
    # |h| grows like sqrt(T) here (unbounded modReLU, orthogonal W), so the
    # logits reach ~50: float32 rounding, relative
    np.testing.assert_allclose(logits, expected, rtol=2e-5, atol=1e-4)
    # the read mask of a plain RNN is all ones
    assert int(np.asarray(_runner(flatbuffer)(ids, 0.0)["read_count"]).reshape(-1)[0]) == 200


def test_cli_export_and_bench_next_to_an_lstm(tmp_path, exported):
    """`keras-skim export` of a ScoRNN model, then `keras-skim bench` with an
    exported LSTM as the baseline: latency of both and their ratio."""
    import json

    from tests.assertions import check_bench_result
    from tests.export.helpers import run_cli

    model, _ = _model()
    path = os.path.join(tmp_path, "model.keras")
    model.save(path)
    out = os.path.join(tmp_path, "export")
    code, stdout, stderr = run_cli(["export", path, "-o", out])
    assert code == 0, stderr
    meta = json.load(open(os.path.join(out, "metadata.json")))
    assert meta["model_kind"] == "scornn" and meta["backend"] == "builtin"
    assert meta["parity"]["ok"] and meta["parity"]["max_abs_diff"] < 1e-4
    assert meta["custom_ops"] == [] and meta["flops"]["kind"] == "scornn"
    from keras_skim.analysis.flops import flop_report

    assert (
        meta["flops"]["baseline_flops_per_token"]
        == flop_report("scornn", meta["units"], 0, meta["embedding_dim"], 0.0)["baseline_flops"]
    )

    _, baseline, _ = exported("lstm")
    report_dir = tmp_path / "report"
    code, stdout, stderr = run_cli(
        ["bench", out, "--baseline", baseline, "--samples", "2", "--repeats", "1", "-o", str(report_dir)]
    )
    assert code == 0, stderr
    report = json.load(open(report_dir / "report.json"))
    assert report["model_kind"] == "scornn" and report["baseline_kind"] == "lstm"
    result = report["results"][0]
    check_bench_result(report, result)
    assert result["skim_rate"] == 0.0
