"""One semantics in Keras, both export backends and the runtime: padding id
0, the threshold rule at its ends (0, 1 and saturated gates), and a token
loop whose cost does not grow with the text length."""

import os

import numpy as np
import pytest

from keras_skim.export.graph_builder import CHUNK

V, E, D, DS = 30, 6, 8, 3


def _model(tmp_path, gate_bias=None, name="m"):
    """A Skim-LSTM classifier saved as .keras; with `gate_bias`, the gate is
    made constant: l_read - l_skim = gate_bias on every token."""
    import keras

    from keras_skim import SkimLSTMCell

    keras.utils.set_random_seed(7)
    cell = SkimLSTMCell(D, DS)
    inp = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(V, E, mask_zero=True)(inp)
    model = keras.Model(inp, keras.layers.Dense(2)(keras.layers.RNN(cell)(x)))
    if gate_bias is not None:
        cell.gate_kernel.assign(np.zeros(cell.gate_kernel.shape, "float32"))
        cell.gate_recurrent_kernel.assign(np.zeros(cell.gate_recurrent_kernel.shape, "float32"))
        cell.gate_bias.assign(np.array([gate_bias, 0.0], "float32"))
    path = str(tmp_path / f"{name}.keras")
    model.save(path)
    return model, path


def _keras_run(model, ids, threshold):
    """(logits, per-token read decisions) of the Keras model at `threshold`."""
    decisions = _keras_decisions(model, ids, threshold)
    return np.asarray(model(ids[None], training=False))[0], decisions


def _keras_decisions(model, ids, threshold):
    from keras_skim import set_threshold
    from keras_skim.models.skim_rnn.skim_statistics import read_decisions

    set_threshold(model, threshold)
    decisions = np.zeros(len(ids), np.int32)
    decisions[ids != 0] = read_decisions(model, ids[ids != 0], threshold)
    return decisions


@pytest.fixture(scope="module")
def exports(tmp_path_factory, op_cache):
    """Builtin and custom exports of one random Skim-LSTM model."""
    from keras_skim.export.exporter import export_model

    tmp = tmp_path_factory.mktemp("semantics")
    model, path = _model(tmp)
    out = {}
    for backend in ("builtin", "custom"):
        out[backend] = export_model(path, str(tmp / backend), backend=backend).output_dir
    return model, out


@pytest.mark.parametrize("backend", ["builtin", "custom"])
def test_padding_id_is_skipped_as_keras_masks_it(exports, backend):
    from keras_skim.runtime import SkimRunner

    model, out = exports
    runner = SkimRunner(out[backend])
    assert runner.metadata["padding_id"] == 0
    for ids in (np.array([5, 9, 0, 0], np.int32), np.array([0, 4, 0, 7, 7, 0, 2], np.int32)):
        for threshold in (0.0, 0.5, 1.5):
            want_logits, want_mask = _keras_run(model, ids, threshold)
            got = runner.run_ids(ids, threshold)
            np.testing.assert_allclose(got["logits"][0], want_logits, atol=1e-5)
            mask = np.asarray(got["read_mask"]).reshape(-1).astype(int)
            np.testing.assert_array_equal(mask, want_mask)
            assert not mask[ids == 0].any()
            assert int(got["read_count"][0]) == int(want_mask.sum())
    # The same text without its padding gives the same answer.
    padded, plain = runner.run_ids([5, 9, 0, 0], 0.5), runner.run_ids([5, 9], 0.5)
    np.testing.assert_allclose(padded["logits"], plain["logits"], atol=1e-6)


@pytest.mark.parametrize("backend", ["builtin", "custom"])
def test_threshold_one_skims_even_saturated_gates(tmp_path, op_cache, backend):
    """l_read - l_skim = 20: float32 sigmoid rounds p_read to 1.0, yet
    threshold 1 skims every token in Keras and in the export; 0.9999999
    (cut 15.9) reads every token."""
    from keras_skim.export.exporter import export_model
    from keras_skim.runtime import SkimRunner

    model, path = _model(tmp_path, gate_bias=20.0)
    runner = SkimRunner(export_model(path, str(tmp_path / "out"), backend=backend).output_dir)
    ids = np.arange(1, 11, dtype=np.int32)
    for threshold, reads in ((1.0, 0), (1.5, 0), (0.9999999, 10), (0.5, 10), (0.0, 10)):
        decisions = _keras_decisions(model, ids, threshold)
        got = runner.run_ids(ids, threshold)
        assert int(decisions.sum()) == reads, threshold
        assert int(got["read_count"][0]) == reads, threshold
        assert np.asarray(got["read_mask"]).sum() == reads


def test_lower_threshold_reads_more_in_keras(tmp_path):
    """The documented direction: read iff p(read) >= threshold."""
    model, _ = _model(tmp_path)
    ids = np.random.default_rng(0).integers(1, V, size=60).astype(np.int32)
    reads = [int(_keras_decisions(model, ids, t).sum()) for t in (0.0, 0.2, 0.4, 0.5, 0.6, 0.8, 1.0)]
    assert reads == sorted(reads, reverse=True) and reads[0] == 60 and reads[-1] == 0
    assert 0 < reads[3] < 60


def _token_loop_subgraph(flatbuffer):
    """The subgraph of the token loop: the WHILE body that calls the IF."""
    from ai_edge_litert import schema_py_generated as schema

    model = schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(flatbuffer, 0))
    names = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
    for subgraph in model.subgraphs:
        ops = [names.get(model.operatorCodes[op.opcodeIndex].builtinCode) for op in subgraph.operators]
        if "IF" in ops:
            return subgraph, ops
    raise AssertionError("no subgraph calls IF")


def test_token_loop_never_updates_a_whole_text_sized_tensor(exports):
    """Every tensor an op of the token loop writes has a static shape: no
    [T]-sized mask is rewritten per token (the loop cost would grow with T)."""
    _, out = exports
    with open(os.path.join(out["builtin"], "model.tflite"), "rb") as f:
        subgraph, ops = _token_loop_subgraph(f.read())
    assert "DYNAMIC_UPDATE_SLICE" in ops
    for op in subgraph.operators:
        for index in op.outputs:
            tensor = subgraph.tensors[index]
            signature = list(tensor.shapeSignature) if tensor.shapeSignature is not None else list(tensor.shape)
            assert -1 not in signature, (tensor.name, signature)
            assert int(np.prod(signature or [1])) <= max(4 * D + 4 * DS + 2, CHUNK), tensor.name
