"""Stacked and bidirectional recurrent layers export (issue 19, item 1): the
README's own model, `Embedding -> Bidirectional(RNN(SkimLSTMCell,
return_sequences=True)) -> RNN(SkimLSTMCell) -> Dense(3)`, through the real
`keras-skim export` (real conversion, the exporter's parity check against
Keras on padded inputs at seven thresholds, the real LiteRT interpreter), a
read mask per layer and direction that agrees with Keras' own skim
statistics, and a stack of LSTM, Skim-GRU and scoRNN layers; tiny sizes."""

import csv
import json
import os

import numpy as np
import pytest

from tests.export.helpers import run_cli, write_tokenizer

V, E, D, DS = 40, 8, 12, 4
CLASSES = ("cooking", "sports", "weather")


def _fit_and_save(model, folder, classes, name="model.h5", fit=True):
    if fit:  # as a user's model.fit would leave it (the skim loss and metrics too)
        rng = np.random.default_rng(0)
        ids = rng.integers(1, V, (16, 10))
        ids[::3, 7:] = 0  # padded rows: the mask reaches every layer
        model.compile("adam", "sparse_categorical_crossentropy")
        model.fit(ids, rng.integers(0, classes, (16,)), batch_size=8, epochs=1, verbose=0)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    model.save(path)
    write_tokenizer(folder)
    return path


def _readme_model():
    import keras

    from keras_skim import SkimLSTMCell

    inp = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(V, E, mask_zero=True)(inp)
    x = keras.layers.Bidirectional(keras.layers.RNN(SkimLSTMCell(D, DS), return_sequences=True))(x)
    x = keras.layers.RNN(SkimLSTMCell(D, DS))(x)
    return keras.Model(inp, keras.layers.Dense(3)(x))


@pytest.fixture(scope="module")
def stacked(tmp_path_factory):
    """(model path, export folder, CLI stdout) of the README's stacked
    bidirectional Skim-LSTM model exported by `keras-skim export` (--backend
    auto: the builtin graph, with the one-line note)."""
    root = tmp_path_factory.mktemp("stacked")
    path = _fit_and_save(_readme_model(), str(root / "run"), 3)
    out = str(root / "export")
    code, stdout, stderr = run_cli(["export", path, "-o", out, "--parity-samples", "2"])
    assert code == 0, stderr
    return path, out, stdout


def test_cli_exports_the_stack_with_parity(stacked):
    from keras_skim.runtime.tflite_check import op_inventory

    _, out, stdout = stacked
    assert "parity OK (against Keras)" in stdout
    # 2 inputs (1 token, and 7 with padding inside and at the end) x 7 thresholds x 3 masks
    assert "2 inputs x 7 thresholds, 168 decisions identical" in stdout
    assert "the custom ops run one forward recurrent layer" in stdout and "stacked_export_speed.md" in stdout
    meta = json.load(open(os.path.join(out, "metadata.json")))
    assert meta["backend"] == "builtin" and meta["model_kind"] == "skim_lstm" and meta["version"] == 3
    masks = ["read_mask", "read_mask_layer0_backward", "read_mask_layer1_forward"]
    assert list(meta["outputs"]) == ["logits", "read_mask", "read_count", *masks[1:]]
    assert all(
        meta["outputs"][m]["dtype"] == "int32" and meta["outputs"][m]["codes"] == {"0": "skimmed", "1": "read"}
        for m in masks
    )
    layers = meta["layers"]
    assert [(x["directions"], x["return_sequences"], x["merge_mode"], x["input_dim"]) for x in layers] == [
        (["forward", "backward"], True, "concat", E),
        (["forward"], False, None, 2 * D),
    ]
    assert [list(x["read_masks"].values()) for x in layers] == [masks[:2], masks[2:]]
    # Flop-R counts every layer and direction: layer 0 twice, layer 1 (input 2d) once.
    flops = meta["flops"]
    per = [x["flops"] for x in layers]
    assert flops["baseline_flops_per_token"] == 2 * per[0]["baseline"] + per[1]["baseline"]
    assert flops["skim_flops_per_token"] == 2 * per[0]["skim"] + per[1]["skim"] < flops["read_flops_per_token"]
    assert "all layers and directions" in flops["flop_r_rule"]
    ops = {op for sub in op_inventory(open(os.path.join(out, "model.tflite"), "rb").read()).values() for op in sub}
    assert not [op for op in ops if op.startswith("CUSTOM") or "FLEX" in op]
    assert {"WHILE", "IF", "REVERSE_V2"} <= ops


def test_runtime_masks_agree_with_keras_per_layer_and_direction(stacked):
    """Each layer's and direction's read mask from the runtime against
    Keras' own skim statistics (return_state twins of every layer under
    the model's mask, not the exporter's reference), on a padded text, at
    several thresholds; layer 0's forward mask token by token against
    `read_decisions`."""
    from keras_skim.model_io import load_model
    from keras_skim.models.skim_rnn.skim_statistics import direction_decisions, read_decisions, skim_statistics
    from keras_skim.runtime.runner import SkimRunner

    path, out, _ = stacked
    model = load_model(path)
    runner = SkimRunner(out)
    assert runner.read_mask_layout == {
        "read_mask": (0, "forward"),
        "read_mask_layer0_backward": (0, "backward"),
        "read_mask_layer1_forward": (1, "forward"),
    }
    ids = np.array([5, 9, 0, 17, 3, 3, 0, 28, 11, 2, 0, 0], np.int32)
    seen = set()
    for threshold in (0.3, 0.5, 0.7):
        masks = runner.read_masks(runner.run_ids(ids, threshold))
        stats = skim_statistics(model, ids[None, :], threshold=threshold, progress=False)["layers"]
        for mask, entry in zip(masks.values(), stats):
            assert mask[ids == 0].tolist() == [0, 0, 0, 0]  # padding is never read
            assert int(mask.sum()) == entry["tokens"] - entry["skimmed"]
            seen.add(int(mask.sum()))
        real = ids[ids != 0]
        assert masks[(0, "forward")][ids != 0].tolist() == read_decisions(model, real, threshold=threshold).tolist()
        # every layer and direction token by token, the backward one in token order too
        per_direction = direction_decisions(model, real, threshold=threshold)
        assert [m[ids != 0].tolist() for m in masks.values()] == [d.tolist() for d in per_direction]
    assert len(seen) > 1  # the decisions vary: the comparison can fail
    # `bench` counts every layer and direction: its Flop-R (from the export's
    # FLOP counts) is the Keras-side one of `evaluate` (from the layers' sizes).
    from keras_skim.models.skim_rnn.skim_layers import stack_flop_r
    from keras_skim.runtime.bench import bench_threshold

    texts = [ids, ids[:5], np.array([7, 1, 30], np.int32)]
    result = bench_threshold(runner, None, texts, texts, None, 0.5, repeats=1)
    rates = result["layer_skim_rates"]
    assert list(rates) == list(runner.read_mask_layout)
    assert result["skim_rate"] == pytest.approx(np.mean(list(rates.values())))
    assert result["flop_r"] == pytest.approx(stack_flop_r(model, list(rates.values())))


def test_custom_backend_refuses_a_stack_in_one_line(stacked, tmp_path):
    from keras_skim.export.errors import ExportError
    from keras_skim.export.exporter import export_model

    path, _, _ = stacked
    with pytest.raises(ExportError, match="one forward recurrent layer.*use --backend builtin"):
        export_model(path, str(tmp_path / "custom"), backend="custom")
    assert not os.path.exists(tmp_path / "custom")


def test_show_and_evaluate_report_every_layer_and_direction(stacked, tmp_path):
    """`show` marks the words once per layer and direction (the paper's
    Figure 3 for one text), each line the export's read mask of that layer
    and direction on the same text, in the terminal and the HTML page."""
    from keras_skim.cli.show_command import render_terminal
    from keras_skim.datasets.tokenizer import Tokenizer
    from keras_skim.runtime.runner import SkimRunner

    path, out, _ = stacked
    text = "the movie was good and fun but the plot was thin"
    page = tmp_path / "show.html"
    code, stdout, stderr = run_cli(["show", path, "--text", text, "--threshold", "0.5", "--html", str(page)])
    assert code == 0, stderr
    tokenizer = Tokenizer.load(os.path.join(os.path.dirname(path), "tokenizer.json"))
    ids = np.asarray(tokenizer.encode_one(text), np.int32)
    runner = SkimRunner(out)
    masks = list(runner.read_masks(runner.run_ids(ids, 0.5)).values())
    labels = ("layer 0 (bidirectional) forward", "layer 0 (bidirectional) backward", "layer 1 (rnn_1) forward")
    lines = stdout.splitlines()
    tokens = tokenizer.tokenize(text)
    for label, mask in zip(labels, masks):
        heading = f"{label}: read {int(mask.sum())} of {len(ids)} tokens, skimmed {1 - mask.sum() / len(ids):.0%}"
        assert heading in lines
        assert lines[lines.index(heading) + 1] == "  " + render_terminal(tokens, mask, color=False)
    assert len({tuple(m) for m in masks}) > 1  # the directions differ: the lines can be told apart
    read = sum(int(m.sum()) for m in masks)
    assert f"read {read} of {3 * len(ids)} tokens over 3 skim layers and directions" in lines[-2]
    html = page.read_text()
    assert [html.count(f"<h2>{label}: read ") for label in labels] == [1, 1, 1]
    assert html.count('<span class="skim">') == sum(int((m == 0).sum()) for m in masks)
    data = tmp_path / "three.csv"
    with open(data, "w", newline="") as f:
        rows = [(f"{name} text number {i} good", name) for i in range(4) for name in CLASSES]
        csv.writer(f).writerows([("text", "label"), *rows])
    code, stdout, stderr = run_cli(["evaluate", path, "--data", str(data), "--split", "all", "--json"])
    assert code == 0, stderr
    result = json.loads(stdout)
    rows = result["layers"]
    assert [(r["layer"], r["direction"]) for r in rows] == [(0, "forward"), (0, "backward"), (1, "forward")]
    assert result["skim_rate"] == pytest.approx(np.mean([r["skim_rate"] for r in rows]))
    from keras_skim.model_io import load_model
    from keras_skim.models.skim_rnn.skim_layers import stack_flop_r

    model = load_model(path)
    assert result["flop_r"] == pytest.approx(stack_flop_r(model, [r["skim_rate"] for r in rows]))
    assert stack_flop_r(model, [0.0, 0.0, 0.0]) < 1.0 < stack_flop_r(model, [1.0, 1.0, 1.0])


def test_mixed_cells_and_merge_modes_without_mask(tmp_path):
    """Bidirectional(LSTM, sum) -> Bidirectional(SkimGRU layer, mul) ->
    RNN(ScoRNNCell) -> Dense(2, softmax), id 0 an ordinary token: exports
    with parity; the plain layers' masks read every token."""
    import keras

    from keras_skim import ScoRNNCell, SkimGRU
    from keras_skim.export.exporter import export_model
    from keras_skim.runtime.runner import SkimRunner

    inp = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(V, E)(inp)
    x = keras.layers.Bidirectional(keras.layers.LSTM(8, return_sequences=True), merge_mode="sum")(x)
    x = keras.layers.Bidirectional(SkimGRU(8, 2, return_sequences=True), merge_mode="mul")(x)
    x = keras.layers.RNN(ScoRNNCell(8))(x)
    model = keras.Model(inp, keras.layers.Dense(2, activation="softmax")(x))
    path = _fit_and_save(model, str(tmp_path / "m"), 2, name="model.keras", fit=False)
    result = export_model(path, str(tmp_path / "out"), backend="builtin", parity_samples=2)
    assert result.parity.ok and result.metadata.model_kind == "skim_gru"
    assert [x["model_kind"] for x in result.metadata.layers] == ["lstm", "skim_gru", "scornn"]
    runner = SkimRunner(str(tmp_path / "out"))
    ids = np.array([0, 4, 7, 0, 9], np.int32)
    masks = runner.read_masks(runner.run_ids(ids, 0.5))
    assert set(masks) == {(0, "forward"), (0, "backward"), (1, "forward"), (1, "backward"), (2, "forward")}
    assert all(masks[key].tolist() == [1] * 5 for key in ((0, "forward"), (0, "backward"), (2, "forward")))
    # Keras' side, step by step on what layer 0 gives layer 1 (no mask: id 0 is read too)
    from keras_skim.models.skim_rnn.skim_statistics import direction_decisions

    skims = [masks[(1, "forward")].tolist(), masks[(1, "backward")].tolist()]
    assert [d.tolist() for d in direction_decisions(model, ids, threshold=0.5)] == skims
    # `show` marks the skim directions only, named by their layer's index among the recurrent ones
    code, stdout, stderr = run_cli(["show", path, "--text", "the movie was good", "--threshold", "0.5"])
    assert code == 0, stderr
    headings = [line.split(":")[0].split() for line in stdout.splitlines() if line.startswith("layer ")]
    assert [(h[1], h[-1]) for h in headings] == [("1", "forward"), ("1", "backward")]
    assert "tokens over 2 skim layers and directions, skimmed" in stdout


def test_the_last_layer_must_give_its_last_output():
    import keras

    from keras_skim import SkimLSTMCell
    from keras_skim.export.errors import ExportError
    from keras_skim.export.plan import plan_model

    inp = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(V, E, mask_zero=True)(inp)
    x = keras.layers.Bidirectional(keras.layers.RNN(SkimLSTMCell(D, DS), return_sequences=True))(x)
    with pytest.raises(ExportError, match="'bidirectional.*': return_sequences=True on the last recurrent layer"):
        plan_model(keras.Model(inp, keras.layers.Dense(1)(x)))


def test_read_mask_names_and_the_layout_metadata_records():
    from keras_skim.contract_fields import FieldError
    from keras_skim.metadata_record import ExportMetadata, read_mask_name

    assert read_mask_name(0) == read_mask_name(0, "forward") == "read_mask"
    assert read_mask_name(0, "backward") == "read_mask_layer0_backward"
    assert read_mask_name(2, "forward") == "read_mask_layer2_forward"
    with pytest.raises(ValueError, match="direction must be one of"):
        read_mask_name(1, "sideways")
    base = {"model_kind": "skim_lstm", "vocabulary_size": 10, "num_classes": 2}
    single = ExportMetadata.from_json(dict(base))
    assert single.read_masks == {"read_mask": (0, "forward")} and "layers" not in single.to_json()
    layers = [
        {"name": "bi", "read_masks": {"forward": "read_mask", "backward": "read_mask_layer0_backward"}},
        {"name": "top", "read_masks": {"forward": "read_mask_layer1_forward"}},
    ]
    stacked = ExportMetadata.from_json(dict(base, layers=layers))
    assert ExportMetadata.from_json(stacked.to_json()).layers == layers
    assert stacked.read_masks == {
        "read_mask": (0, "forward"),
        "read_mask_layer0_backward": (0, "backward"),
        "read_mask_layer1_forward": (1, "forward"),
    }
    with pytest.raises(FieldError, match='"layers"'):
        ExportMetadata.from_json(dict(base, layers={"name": "bi"}))


def test_per_layer_statistics_whatever_the_layers_are_named():
    """`evaluate` and `show` probe every layer with twin RNN layers: a model
    whose layers carry the names Keras would give those twins next (as a
    model loaded in a fresh process can) still gives its statistics."""
    import keras

    from keras_skim import SkimLSTMCell
    from keras_skim.models.skim_rnn.skim_statistics import skim_statistics

    taken = keras.layers.RNN(SkimLSTMCell(2, 1)).name  # "rnn" or "rnn_K": the names after it come next
    base, _, k = taken.rpartition("_")
    upcoming = [f"{base}_{int(k) + i}" for i in (1, 2, 3)] if k.isdigit() else [f"{taken}_{i}" for i in (1, 2, 3)]
    inp = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(V, E, mask_zero=True)(inp)
    x = keras.layers.RNN(SkimLSTMCell(D, DS), return_sequences=True, name=upcoming[0])(x)
    x = keras.layers.RNN(SkimLSTMCell(D, DS), name=upcoming[1])(x)
    model = keras.Model(inp, keras.layers.Dense(1)(x))
    stats = skim_statistics(model, np.array([[3, 4, 0, 5]]), threshold=0.0, progress=False)
    assert [layer["tokens"] for layer in stats["layers"]] == [3, 3] and stats["skim_rate"] == 0.0
