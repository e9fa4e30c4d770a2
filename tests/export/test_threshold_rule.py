"""The read rule has one reference, `keras_skim.contracts.threshold_cut` /
`read_decisions`: golden ties and edges, then the Keras cell, the TF
graph's `threshold_cut`, the builtin export and the C++ op (through the
runtime on a custom export) held against it."""

import math

import numpy as np
import pytest

from keras_skim import contracts

V, E, D, DS = 24, 4, 6, 2
THRESHOLDS = (0.0, 1e-7, 0.25, 0.5, 0.8, 0.9999999, 1.0, 1.5)


def _ulps_off(threshold, ulps):
    """The float32 gates `ulps` float32 steps either side of the reference cut."""
    cut = np.float32(contracts.threshold_cut(threshold))
    step = np.spacing(cut)
    return [cut - ulps * step, cut + ulps * step]


# Gates l_read - l_skim, each a float32 an embedding row carries exactly (see `_model`).
GATES = np.float32(
    [0.0, 1e-6, -1e-6, 20.0, -20.0, 50.0, -50.0, 15.0, -16.0]
    + _ulps_off(0.25, 32)
    + _ulps_off(0.8, 32)
    + _ulps_off(0.9999999, 32)
)

GOLDEN = [  # (threshold, gate, read)
    (0.0, -50.0, True),  # t = 0 reads every token
    (0.0, -1e30, True),
    (-2.0, -1e30, True),
    (1.0, 50.0, False),  # t >= 1 skims every token, even where float32 sigmoid(gate) rounds to 1
    (1.0, 1e30, False),
    (1.5, 1e30, False),
    (0.5, 0.0, True),  # equal probabilities: the cut is 0 and a tie reads
    (0.5, -1e-30, False),
    (0.5, 1e-30, True),
    (0.9999999, 20.0, True),  # the float32 threshold 0.99999988: cut 15.94
    (0.9999999, 15.9, False),
    (0.25, -1.0986122, True),  # logit(0.25) = -1.09861229
    (0.25, -1.0986124, False),
]


@pytest.mark.parametrize("threshold, gate, read", GOLDEN)
def test_the_reference_on_golden_ties_and_edges(threshold, gate, read):
    assert contracts.read_decisions([gate], threshold).tolist() == [read]


def test_the_reference_cut_and_its_refusals():
    assert contracts.threshold_cut(0.0) == -math.inf and contracts.threshold_cut(1.0) == math.inf
    assert contracts.threshold_cut(0.5) == 0.0
    assert contracts.threshold_cut(0.7) == pytest.approx(math.log(0.7 / 0.3), rel=1e-6)
    assert contracts.threshold_cut(0.3) < contracts.threshold_cut(0.7)  # a lower threshold reads more
    assert contracts.threshold_cut(1e300) == math.inf and contracts.threshold_cut(1e-50) == -math.inf
    with pytest.raises(contracts.ContractError, match="NaN"):
        contracts.threshold_cut(float("nan"))
    with pytest.raises(contracts.ContractError):
        contracts.read_decisions([0.0], float("nan"))
    with pytest.raises(contracts.ContractError):  # the runtime's check refuses it too
        contracts.check_threshold(float("nan"))


def _sweep():
    rng = np.random.default_rng(0)
    return np.concatenate([np.float32(THRESHOLDS), rng.uniform(0, 1, 500).astype(np.float32)])


def _assert_cuts_near_the_reference(thresholds, cuts):
    """Each float32 cut is the reference's, within the rounding of two float32 logs."""
    for t, got in zip(thresholds, np.asarray(cuts, np.float32)):
        want = contracts.threshold_cut(float(t))
        if math.isinf(want) or want == 0.0:
            assert got == want, (t, got, want)
            continue
        logs = np.float32([math.log(t), math.log1p(-t)])
        band = 4 * float(np.sum(np.spacing(np.abs(logs)))) + float(np.spacing(np.float32(want)))
        assert abs(float(got) - want) <= band, (t, got, want)


def test_the_keras_cell_cut_is_the_reference():
    from keras_skim import SkimLSTMCell

    cell = SkimLSTMCell(D, DS)
    cell.build((None, E))
    thresholds = _sweep()
    cuts = []
    for t in thresholds:
        cell.threshold = float(t)
        cuts.append(np.asarray(cell._threshold_cut()))
    _assert_cuts_near_the_reference(thresholds, cuts)


def test_the_tf_graph_cut_is_the_reference():
    import tensorflow as tf

    from keras_skim.export.graph_builder import threshold_cut

    thresholds = _sweep()
    _assert_cuts_near_the_reference(thresholds, threshold_cut(tf, tf.constant(thresholds)).numpy())


def _model(path):
    """A Skim-LSTM classifier whose gate on token i (1..len(GATES)) is
    exactly GATES[i - 1]: the embedding's first column carries it and the
    gate reads only that column."""
    import keras

    from keras_skim import SkimLSTMCell

    keras.utils.set_random_seed(3)
    cell = SkimLSTMCell(D, DS)
    inp = keras.Input((None,), dtype="int32")
    embedding = keras.layers.Embedding(V, E, mask_zero=True)
    model = keras.Model(inp, keras.layers.Dense(1)(keras.layers.RNN(cell)(embedding(inp))))
    rows = np.asarray(embedding.embeddings.numpy())
    rows[1 : len(GATES) + 1, 0] = GATES
    embedding.embeddings.assign(rows)
    kernel = np.zeros(cell.gate_kernel.shape, "float32")
    kernel[0, 0] = 1.0
    cell.gate_kernel.assign(kernel)
    cell.gate_recurrent_kernel.assign(np.zeros(cell.gate_recurrent_kernel.shape, "float32"))
    cell.gate_bias.assign(np.zeros(2, "float32"))
    model.save(path)
    return model


@pytest.fixture(scope="module")
def gated(tmp_path_factory, op_cache):
    """(the model, {backend: SkimRunner of its export})."""
    from keras_skim.export.exporter import export_model
    from keras_skim.runtime import SkimRunner

    assert len(GATES) < V
    tmp = tmp_path_factory.mktemp("threshold_rule")
    model = _model(str(tmp / "m.keras"))
    runners = {
        backend: SkimRunner(export_model(str(tmp / "m.keras"), str(tmp / backend), backend=backend).output_dir)
        for backend in ("builtin", "custom")
    }
    return model, runners


IDS = np.arange(1, len(GATES) + 1, dtype=np.int32)


@pytest.mark.parametrize("threshold", THRESHOLDS)
def test_keras_and_both_exports_decide_as_the_reference(gated, threshold):
    from keras_skim import set_threshold
    from keras_skim.models.skim_rnn.skim_statistics import read_decisions

    model, runners = gated
    want = contracts.read_decisions(GATES, threshold).astype(int).tolist()
    assert 0 < sum(want) < len(GATES) or threshold in (0.0, 1.0, 1.5)
    set_threshold(model, threshold)
    assert np.asarray(read_decisions(model, IDS, threshold)).astype(int).tolist() == want, "Keras"
    for backend, runner in runners.items():
        got = np.asarray(runner.run_ids(IDS, threshold)["read_mask"]).reshape(-1).astype(int).tolist()
        assert got == want, backend


def test_the_runtime_refuses_a_nan_threshold(gated):
    """The exports themselves would skim every token (a NaN cut): the runtime refuses it in one line."""
    from keras_skim.runtime.runner import RuntimeModelError

    _, runners = gated
    for runner in runners.values():
        with pytest.raises(RuntimeModelError, match="nan"):
            runner.run_ids(IDS, float("nan"))
