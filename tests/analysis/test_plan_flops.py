"""The one FLOP report (`analysis.flops.plan_flop_report`) over a model's
export plan: training's `flop_summary`, `evaluate`'s `stack_flop_r`, the
export's metadata and `bench` give the same numbers, and a cell's formula
is its emitter's `flop_kind` (a ScoRNN step is one matrix block, as in a
plain RNN: h_t = modReLU(U x_t + W h_{t-1} + b))."""

import pytest

V, E, D, DS = 40, 6, 10, 3


def _model(*rnns):
    """Input -> Embedding(V, E) -> the recurrent layers `rnns` -> Dense(1)."""
    import keras

    inp = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(V, E, mask_zero=True)(inp)
    for rnn in rnns:
        x = rnn(x)
    return keras.Model(inp, keras.layers.Dense(1)(x))


def _scornn(units=D, **kwargs):
    import keras

    from keras_skim.models.scornn.scornn_cell import ScoRNNCell

    return keras.layers.RNN(ScoRNNCell(units, rho=2, seed=0), **kwargs)


def _skim_lstm(units=D, **kwargs):
    import keras

    from keras_skim import SkimLSTMCell

    return keras.layers.RNN(SkimLSTMCell(units, DS), **kwargs)


def test_a_scornn_step_counts_one_matrix_block():
    from keras_skim.analysis.flops import rnn_step_flops

    # U x + W h (2 FLOPs a multiply-add), then + b and the modReLU, 7 per unit.
    assert rnn_step_flops("scornn", D, E) == 2 * D * (E + D) + 7 * D
    assert rnn_step_flops("lstm", D, E) == 4 * 2 * D * (E + D) + 13 * D


def test_train_and_evaluate_count_a_scornn_model_alike():
    """`flop_summary` (train, evaluate) counted a plain ScoRNN as an LSTM,
    `stack_flop_r` as a ScoRNN: both now read the plan's `flop_kind`."""
    from keras_skim.analysis.flops import rnn_step_flops
    from keras_skim.models.skim_rnn.skim_layers import stack_flop_r
    from keras_skim.models.text_classifier.text_classifier_training import flop_summary

    model = _model(_scornn())
    report = flop_summary(model, 0.0)
    assert report["kind"] == "scornn"
    assert report["baseline_flops"] == report["read_flops"] == rnn_step_flops("scornn", D, E)
    assert report["flop_r"] == 1.0 == stack_flop_r(model, [])

    # A ScoRNN under a skim layer: both name the same Flop-R, the ScoRNN counted once as itself.
    model = _model(_scornn(return_sequences=True), _skim_lstm())
    for rate in (0.0, 0.3, 1.0):
        summary = flop_summary(model, rate)
        scornn = rnn_step_flops("scornn", D, E)
        lstm = [d for d in summary["directions"] if d["kind"] == "lstm"][0]
        assert summary["directions"][0]["baseline_flops"] == scornn
        want = (scornn + lstm["baseline_flops"]) / (scornn + lstm["expected_flops"])
        assert summary["flop_r"] == pytest.approx(want, rel=1e-12)
        assert stack_flop_r(model, [rate]) == summary["flop_r"]
    assert flop_summary(model, 0.0)["flop_r"] < 1.0 < flop_summary(model, 1.0)["flop_r"]


def test_a_single_skim_layer_report_is_its_cell_report():
    from keras_skim.analysis.flops import flop_report
    from keras_skim.models.text_classifier.text_classifier_training import flop_summary

    model = _model(_skim_lstm())
    assert flop_summary(model, 0.25) == flop_report("lstm", D, DS, E, 0.25)


def test_the_metadata_counts_and_bench_come_from_the_same_report():
    """The export's FLOP counts are the plan's report, and `bench`'s Flop-R
    from those counts is the report's at the same rates."""
    import keras

    from keras_skim import contracts
    from keras_skim.analysis.flops import plan_flop_report
    from keras_skim.export.metadata import flops_section, stack_layers
    from keras_skim.export.plan import plan_model
    from keras_skim.runtime import bench

    single = plan_model(_model(_skim_lstm()))
    record = contracts.ExportMetadata(model_kind="skim_lstm", flops=flops_section(single))
    for rate in (0.0, 0.4, 1.0):
        assert bench.flop_r(record, rate) == pytest.approx(plan_flop_report(single, [rate])["flop_r"], rel=1e-12)

    stack = plan_model(_model(keras.layers.Bidirectional(_skim_lstm(return_sequences=True)), _scornn()))
    record = contracts.ExportMetadata(model_kind="skim_lstm", layers=stack_layers(stack))
    rates = {"read_mask": 0.2, "read_mask_layer0_backward": 0.7}
    assert list(rates) == [name for _, _, name in stack.read_mask_outputs()[:2]]
    report = plan_flop_report(stack, list(rates.values()))
    assert [d["kind"] for d in report["directions"]] == ["lstm", "lstm", "scornn"]
    assert bench.stack_flop_r(record, rates) == pytest.approx(report["flop_r"], rel=1e-12)
    section = flops_section(stack)
    assert section.baseline_flops_per_token == report["baseline_flops"]
    assert section.skim_flops_per_token == report["skim_flops"] < report["read_flops"]


def test_one_rate_per_skimming_direction():
    from keras_skim.analysis.flops import plan_flop_report
    from keras_skim.export.plan import plan_model

    plan = plan_model(_model(_scornn(return_sequences=True), _skim_lstm()))
    with pytest.raises(ValueError, match="expected 1 skim rates"):
        plan_flop_report(plan, [0.1, 0.2])
    with pytest.raises(ValueError, match="skim_rate must be in"):
        plan_flop_report(plan, [1.5])


def test_evaluate_counts_over_the_plan_and_refuses_an_unplannable_model_in_one_line(tmp_path):
    """`keras-skim evaluate` on a model the exporter cannot read (a pooling
    layer after the recurrent one) ends in one line, exit 2; the same model
    without it gives the plan's Flop-R."""
    import csv
    import json

    import keras

    from keras_skim.analysis.flops import flop_report
    from tests.assertions import one_line
    from tests.export.helpers import run_cli, write_tokenizer

    data = tmp_path / "two.csv"
    with open(data, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["text", "label"]] + [["the movie was good", "1"], ["bad film awful", "0"]] * 6)
    for name, pooled in (("pooled", True), ("plain", False)):
        folder = tmp_path / name
        folder.mkdir()
        keras.utils.set_random_seed(0)
        model = _model(_skim_lstm(return_sequences=pooled), *([keras.layers.GlobalMaxPooling1D()] if pooled else []))
        model.save(folder / "model.keras")
        write_tokenizer(str(folder))
        code, stdout, stderr = run_cli(["evaluate", str(folder), "--data", str(data), "--json"])
        if pooled:
            assert code == 2 and "no Flop-R" in one_line(stderr) and "GlobalMaxPooling1D" in stderr, stderr
        else:
            assert code == 0, stderr
            result = json.loads(stdout)
            assert result["flop_r"] == flop_report("lstm", D, DS, E, result["skim_rate"])["flop_r"]
