"""Export of Structural-Jump-LSTM models, both backends: the loop that
advances by the jump gives the greedy pass's visited and read words and
its logits, checked against the Keras model (the exporter's parity) and
against an independent NumPy pass (tests/numpy_reference.py), with every
skip and jump action forced through the agents' biases; texts without
words; the export folder's outputs and metadata; bad input in one line."""

import json
import os

import numpy as np
import pytest

from tests.assertions import one_line
from tests.numpy_reference import structural_jump_pass, structural_jump_weights, text_structure_reference

COMMA, PERIOD, QUOTE = 2, 3, 4
V, E, M, A = 40, 6, 12, 6
READ_BIAS, SKIP_BIAS = [-50.0, 50.0], [50.0, -50.0]
# (skip agent bias [skip, read], jump agent bias [word, separator, sentence, end], speed_reading)
CONFIGS = {
    "next_word": (READ_BIAS, [50.0, 0.0, 0.0, 0.0], True),
    "next_separator": (READ_BIAS, [0.0, 50.0, 0.0, 0.0], True),
    "next_sentence": (READ_BIAS, [0.0, 0.0, 50.0, 0.0], True),
    "end_of_text": (READ_BIAS, [0.0, 0.0, 0.0, 50.0], True),
    "skip_every_word": (SKIP_BIAS, [0.0, 0.0, 50.0, 0.0], True),
    "mixed": ([0.0, 0.0], [1.0, 0.5, 0.5, -0.5], True),
    "full_read_model": (SKIP_BIAS, [0.0, 0.0, 0.0, 50.0], False),
}


def _model(config="mixed", seed=1):
    from keras_skim import StructuralJumpLSTM

    model = StructuralJumpLSTM(
        V,
        separator_ids=[COMMA],
        sentence_end_ids=[PERIOD],
        other_punctuation_ids=[QUOTE],
        units=M,
        agent_units=A,
        embedding_dim=E,
        seed=1,
    )
    rs = np.random.RandomState(seed)
    for v in model.trainable_weights:
        v.assign(rs.normal(0, 0.5, v.shape).astype("float32"))
    skip, jump, speed = CONFIGS[config]
    model.cell.skip_policy.bias.assign(skip)
    model.cell.jump_policy.bias.assign(jump)
    model.speed_reading = speed
    return model


def _texts():
    """Sentences and sub-sentences, punctuation at both ends and in runs,
    padding inside, one word, and a long text whose jumps cross the loop's
    chunks of 128 positions."""
    rs = np.random.RandomState(7)
    long = []
    for _ in range(12):
        long += list(rs.randint(5, V, rs.randint(1, 60)))
        long.append(rs.choice([COMMA, PERIOD, PERIOD, QUOTE]))
    noisy = rs.randint(5, V, 70)
    marks = rs.rand(70) < 0.3
    noisy[marks] = rs.choice([COMMA, PERIOD, QUOTE, 0], size=int(marks.sum()))
    return [
        np.asarray(t, np.int32)
        for t in (
            [9, 20, COMMA, 21, 22, PERIOD, 23, 24, COMMA, 25, PERIOD],
            [QUOTE, 0, PERIOD, 9, 10, 0, COMMA, COMMA, 11, PERIOD, PERIOD, 12, 0, QUOTE],
            [7],
            [8, 9, 10, 11, 12, 13],
            long,
            noisy,
        )
    ]


def _numpy_pass(model, ids, jumps=None):
    """(token codes [T], logits) of an independent NumPy greedy pass; the
    jump actions taken are appended to the list `jumps`."""
    w = structural_jump_weights(model.cell)
    words, offsets, positions = text_structure_reference(list(ids), [COMMA], [PERIOD], [QUOTE])
    x = np.asarray(model.embedding.embeddings, np.float64)[np.asarray(words, np.int64)].reshape(len(words), E)
    visited, read, actions, h, _ = structural_jump_pass(x, offsets, len(words), w, speed_reading=model.speed_reading)
    if jumps is not None:
        jumps.extend(actions)
    codes = np.full(len(ids), 3, np.int32)
    positions = np.asarray(positions, np.int64)
    codes[positions] = 2
    codes[positions[visited]] = 0
    codes[positions[read]] = 1
    hidden = np.maximum(h @ np.asarray(model.hidden.kernel) + np.asarray(model.hidden.bias), 0)
    return codes, hidden @ np.asarray(model.classifier.kernel) + np.asarray(model.classifier.bias)


def _flatbuffer(model, backend, fold=None):
    """(plan, flatbuffer bytes) of `model` by one backend (what `export_model` does, without the files)."""
    from keras_skim.export.exporter import backends
    from keras_skim.export.plan import plan_model

    plan = plan_model(model)
    chosen = backends()[backend]
    chosen.check(model, plan)
    return plan, chosen.flatbuffer(model, plan, threshold=None, length=None, fold=fold)


def _export(model, backend, fold=None):
    """(plan, runner) of `model` through one backend's flatbuffer and the
    runtime's interpreter."""
    from keras_skim.export.exporter import _runner

    plan, flatbuffer = _flatbuffer(model, backend, fold)
    return plan, _runner(flatbuffer)


@pytest.fixture(scope="module")
def library():
    """The op library in the usual cache (built once per source version;
    tests/export/conftest.py's op_cache tests the build itself)."""
    import shutil

    if shutil.which(os.environ.get("CXX", "g++")) is None:
        pytest.skip("no C++ compiler: the custom-op library cannot be built")
    from keras_skim import litert_ops

    return litert_ops.library_path()


def _keras_once(model, plan):
    """The exporter's Keras reference of `model` (`check_parity`'s default), each text run once:
    both backends' exports of one model are checked against the same Keras outputs, and the
    eager Keras pass is the slow half of a parity check."""
    from keras_skim.export.parity import keras_reference

    run, seen = keras_reference(model, plan), {}

    def reference(batch, threshold):
        key = (batch.shape, batch.tobytes())
        if key not in seen:
            seen[key] = run(batch)
        return seen[key]

    return reference


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_every_action_gives_the_greedy_pass(library, config):
    """Both backends (one model, one Keras pass per text for both)."""
    model = _model(config)
    texts = _texts()
    reference = None
    for backend in ("builtin", "custom"):
        plan, run = _export(model, backend)
        reference = reference or _keras_once(model, plan)
        _check_greedy_pass(model, plan, run, texts, reference, config)


def _check_greedy_pass(model, plan, run, texts, reference, config):
    from keras_skim.export.parity import check_parity

    result = check_parity(model, plan, run, texts, [None], reference=reference)
    assert result.ok, result.message
    assert result.decisions == sum(len(t) for t in texts) and result.max_abs_diff <= 1e-4
    reads = skips = 0
    jumps = []
    for ids in texts:
        out = run(ids[None], 0.5)
        codes, logits = _numpy_pass(model, ids, jumps)
        np.testing.assert_array_equal(out["read_mask"][0], codes)
        np.testing.assert_allclose(out["logits"][0], logits, atol=1e-4)
        assert int(out["read_count"][0]) == int((codes == 1).sum())
        assert int(out["visited_count"][0]) == int((codes <= 1).sum())
        reads += int((codes == 1).sum())
        skips += int((codes == 0).sum())
    actions = set(jumps)
    skip_bias, jump_bias, speed = CONFIGS[config]
    if not speed:
        assert skips == 0 and actions == {0}  # the agents are off: every word read, none jumped
    elif skip_bias == SKIP_BIAS:
        assert reads == 0 and skips == sum(int((~np.isin(t, [0, COMMA, PERIOD, QUOTE])).sum()) for t in texts)
    elif config == "mixed":
        assert reads and skips and len(actions) >= 2
    else:
        assert skips == 0 and actions == {int(np.argmax(jump_bias))}


def test_folded_word_terms_give_the_same_pass(library):
    """fold=True: the LSTM's word term comes from a [V, 4m] table (by default
    only when that is not larger than the embedding); both backends."""
    from keras_skim.export.parity import check_parity

    model = _model("mixed")
    reference = None
    for backend in ("builtin", "custom"):
        plan, run = _export(model, backend, fold=True)
        reference = reference or _keras_once(model, plan)
        assert check_parity(model, plan, run, _texts(), [None], reference=reference).ok, backend
        for ids in _texts()[:2]:
            np.testing.assert_array_equal(run(ids[None], 0.0)["read_mask"][0], _numpy_pass(model, ids)[0])


def test_jumps_land_on_the_first_word_after_the_separator(library):
    """The documented semantics on one text, by hand: read 9, jump to the
    first word after the next sentence end (23), and so on."""
    ids = np.array([9, 20, COMMA, 21, 22, PERIOD, QUOTE, 23, 24, PERIOD], np.int32)
    for backend in ("builtin", "custom"):
        _, run = _export(_model("next_sentence"), backend)
        assert run(ids[None], 0.0)["read_mask"][0].tolist() == [1, 2, 3, 2, 2, 3, 3, 1, 2, 3]
    _, run = _export(_model("next_separator"), "custom")
    assert run(ids[None], 0.0)["read_mask"][0].tolist() == [1, 2, 3, 1, 2, 3, 3, 1, 2, 3]


def test_texts_without_words_read_nothing(library):
    """Both backends."""
    from keras_skim.export.parity import check_parity

    model = _model("mixed")
    texts = [np.array(t, np.int32) for t in ([COMMA, PERIOD, QUOTE], [0, 0, 0], [0], [PERIOD, 0, COMMA])]
    empty_logits = np.asarray(model(np.zeros((1, 1), np.int32), training=False)["logits"])[0]
    reference = None
    for backend in ("builtin", "custom"):
        plan, run = _export(model, backend)
        reference = reference or _keras_once(model, plan)
        assert check_parity(model, plan, run, texts, [None], reference=reference).ok, backend
        for ids in texts:
            out = run(ids[None], 0.0)
            assert out["read_mask"][0].tolist() == [3] * len(ids)
            assert int(out["read_count"][0]) == int(out["visited_count"][0]) == 0
            np.testing.assert_allclose(out["logits"][0], empty_logits, atol=1e-6)


def test_custom_op_instruction_sets_agree_with_keras(library, monkeypatch):
    """KERAS_SKIM_SIMD falls back to the best supported set where the CPU
    lacks one; every set must give the Keras model's pass. The op reads it
    when an interpreter creates its kernel: one export, an interpreter per set."""
    from keras_skim.export.exporter import _runner
    from keras_skim.export.parity import check_parity

    model = _model("mixed", seed=2)
    plan, flatbuffer = _flatbuffer(model, "custom")
    reference = _keras_once(model, plan)
    for simd in ("generic", "sse", "avx2", "avx512"):
        monkeypatch.setenv("KERAS_SKIM_SIMD", simd)
        result = check_parity(model, plan, _runner(flatbuffer), _texts(), [None], reference=reference)
        assert result.ok, (simd, result.message)


@pytest.fixture(scope="module")
def exports(library, tmp_path_factory):
    """The model saved with a tokenizer, exported by `export_model` with each
    backend: (model folder, {backend: ExportResult})."""
    from keras_skim.datasets.tokenizer import Tokenizer
    from keras_skim.export.exporter import export_model

    folder = tmp_path_factory.mktemp("sj_model")
    model = _model("mixed")
    model.save(folder / "model.keras")
    vocabulary = ["<pad>", "<unk>", ",", ".", "'"] + [f"w{i}" for i in range(5, V)]
    Tokenizer(vocabulary=vocabulary).save(str(folder / "tokenizer.json"))
    results = {
        backend: export_model(
            str(folder), str(folder.parent / f"sj_{backend}"), backend=backend, threshold=0.7, parity_samples=6
        )
        for backend in ("builtin", "custom")
    }
    return folder, results


@pytest.mark.parametrize("backend", ["builtin", "custom"])
def test_export_folder_outputs_and_metadata(exports, backend):
    from keras_skim import contracts

    _, results = exports
    result = results[backend]
    assert result.parity.ok and result.parity.mismatched_decisions == 0
    assert any("--threshold ignored" in note for note in result.notes)
    with open(os.path.join(result.output_dir, "metadata.json")) as f:
        meta = json.load(f)
    assert meta["model_kind"] == "structural_jump_lstm" and meta["backend"] == backend
    assert (meta["units"], meta["agent_units"], meta["embedding_dim"], meta["vocabulary_size"]) == (M, A, E, V)
    assert meta["num_classes"] == 2 and meta["output_activation"] == "softmax"
    assert meta["padding_id"] == 0 and meta["default_threshold"] is None and meta["threshold_rule"] is None
    assert "threshold" not in meta["inputs"]  # the agents decide: no threshold input (one signature)
    assert set(meta["outputs"]) == {"logits", "read_mask", "read_count", "visited_count"}
    assert meta["outputs"]["read_mask"]["dtype"] == "int32"
    assert meta["token_codes"] == {
        "0": "skipped",
        "1": "read",
        "2": "jumped",
        "3": "not a word (punctuation or padding)",
    }
    assert meta["punctuation"] == {
        "separator_ids": [COMMA],
        "sentence_end_ids": [PERIOD],
        "other_punctuation_ids": [QUOTE],
    }
    assert meta["speed_reading"] is True
    flops = meta["flops"]
    from keras_skim.models.structural_jump.structural_jump_flops import structural_jump_step_flops

    step = structural_jump_step_flops(M, E, A)
    assert (flops["baseline_flops_per_token"], flops["skip_agent_flops"], flops["read_step_flops"]) == (
        step["baseline_lstm"],
        step["skip_agent"],
        step["read_step"],
    )
    assert meta["custom_ops"] == (["KerasSjLSTM"] if backend == "custom" else [])
    assert sorted(os.listdir(result.output_dir)) == sorted(
        [contracts.MARKER_FILE, "metadata.json", "model.tflite", "tokenizer.json"]
    )


@pytest.mark.parametrize("backend", ["builtin", "custom"])
def test_runner_runs_the_export_like_keras(exports, backend):
    """The runtime's SkimRunner (the route of bench and the app): threshold
    ignored, the four codes, visited_count, an empty text reads nothing."""
    from keras_skim import load_model
    from keras_skim.runtime import SkimRunner

    folder, results = exports
    model = load_model(folder / "model.keras")
    runner = SkimRunner(results[backend].output_dir)
    assert runner.jumps and not runner.skims
    ids = _texts()[0]
    first, second = runner.run_ids(ids, 0.0), runner.run_ids(ids, 0.9)
    for key in ("logits", "read_mask", "read_count", "visited_count"):
        np.testing.assert_array_equal(first[key], second[key])
    codes, logits = _numpy_pass(model, ids)
    np.testing.assert_array_equal(first["read_mask"][0], codes)
    np.testing.assert_allclose(first["logits"][0], logits, atol=1e-4)
    empty = runner.run_ids(np.zeros((0,), np.int32))
    assert int(empty["read_count"][0]) == int(empty["visited_count"][0]) == 0
    np.testing.assert_allclose(
        empty["logits"][0], np.asarray(model(np.zeros((1, 1), np.int32))["logits"])[0], atol=1e-6
    )
    probabilities, mask, tokens = runner.classify("w5 w6 , w7 . w8")
    assert len(mask) == len(tokens) == 6 and mask[2] == mask[4] == 3
    assert probabilities.sum() == pytest.approx(1.0)


def test_builtin_token_loop_writes_only_static_small_tensors(exports):
    """Every tensor an op of the token loop (the WHILE body that calls the
    IF) writes has a static shape no larger than the LSTM's gates or the
    mask chunk: nothing of the text's length is updated per word."""
    from ai_edge_litert import schema_py_generated as schema

    from keras_skim.export.graph_builder import CHUNK

    _, results = exports
    with open(os.path.join(results["builtin"].output_dir, "model.tflite"), "rb") as f:
        model = schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(f.read(), 0))
    names = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
    bodies = []
    for subgraph in model.subgraphs:
        ops = [names.get(model.operatorCodes[op.opcodeIndex].builtinCode) for op in subgraph.operators]
        if "IF" in ops:
            bodies.append((subgraph, ops))
    assert len(bodies) == 1
    subgraph, ops = bodies[0]
    assert "DYNAMIC_UPDATE_SLICE" in ops and "FULLY_CONNECTED" in ops
    for op in subgraph.operators:
        for index in op.outputs:
            tensor = subgraph.tensors[index]
            shape = list(tensor.shapeSignature) if tensor.shapeSignature is not None else list(tensor.shape)
            assert -1 not in shape, (tensor.name, shape)
            assert int(np.prod(shape or [1])) <= max(4 * M, CHUNK), tensor.name
    branches = [s for s in model.subgraphs if b"cond_true" in (s.name or b"") or b"cond_false" in (s.name or b"")]
    read_branch = [s for s in branches if s.operators]
    assert len(branches) == 2 and len(read_branch) == 1  # the skip branch passes h and c through


def test_bad_input_is_one_line(tmp_path, library):
    import keras

    from keras_skim import StructuralJumpLSTMCell
    from keras_skim.export.errors import ExportError
    from keras_skim.export.exporter import export_model
    from keras_skim.models.structural_jump.text_structure import TextStructure

    model = _model("mixed")
    model.save(tmp_path / "sj.keras")
    with pytest.raises(ExportError) as info:
        export_model(tmp_path / "sj.keras", tmp_path / "q", backend="builtin", quantize="int8")
    assert one_line(str(info.value)).startswith("--quantize int8 is not available for structural_jump_lstm")
    assert not (tmp_path / "q").exists()

    # The cell on its own, outside the model that computes the jump offsets.
    ids = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(V, E + 9)(ids)
    x = keras.layers.RNN(StructuralJumpLSTMCell(M, A))(x)
    keras.Model(ids, keras.layers.Dense(2)(x)).save(tmp_path / "cell.keras")
    # A model with the text structure but no agents (a plain LSTM).
    words, _, _ = TextStructure([COMMA], [PERIOD], [QUOTE])(ids)
    y = keras.layers.LSTM(M)(keras.layers.Embedding(V, E)(words))
    keras.Model(ids, keras.layers.Dense(2)(y)).save(tmp_path / "no_agents.keras")
    for name, expected in (
        ("cell", "is exported only inside a keras_skim.StructuralJumpLSTM"),
        ("no_agents", "is not a complete Structural-Jump-LSTM model"),
    ):
        for backend in ("builtin", "custom"):
            with pytest.raises(ExportError) as info:
                export_model(tmp_path / f"{name}.keras", tmp_path / "out", backend=backend)
            assert expected in one_line(str(info.value)), (name, backend)
            assert not (tmp_path / "out").exists()


def test_export_speed_benchmark_times_both_exports(exports):
    """benchmarks/sj_export_speed.py's runner and timings on real exports (the
    script once fed jump exports a threshold input they do not have)."""
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
    import sj_export_speed

    _, results = exports
    runners = {}
    for backend, result in results.items():
        with open(os.path.join(result.output_dir, "model.tflite"), "rb") as f:
            runners[f"sj_{backend}"] = sj_export_speed.Runner(f.read())
    texts = _texts()[:3]
    outputs = [runners["sj_custom"].run(ids) for ids in texts]
    assert [int((o["read_mask"][0] == 1).sum()) for o in outputs] == [int(o["read_count"][0]) for o in outputs]
    inputs = dict.fromkeys(runners, texts)
    for timing in (sj_export_speed.time_interleaved, sj_export_speed.time_in_blocks):
        times = timing(runners, inputs, 2)
        assert all(t.shape == (2, 3) and (t > 0).all() for t in times.values())
    # Against itself, each speed-up is 1 whichever way it is averaged.
    same = {"lstm_words": times["sj_custom"], "lstm_tokens": times["sj_custom"], "sj_custom": times["sj_custom"]}
    row = sj_export_speed.speedups(same, "sj_custom", {"flop_r": 2.0, "flop_r_per_document_mean": 4.0})
    assert row["speedup_vs_lstm_words"] == row["per_document_speedup_vs_lstm_words"] == 1.0
    assert (row["speedup_over_flop_r"], row["per_document_speedup_over_flop_r"]) == (0.5, 0.25)
