"""Damaged and hand-made exports of every kind and backend, run by the
TF-free runtime in one subprocess (tests/runtime/fuzz_exports.py): each
one opens and runs, or is refused in one line; none crashes the process.
The structural check (`keras_skim.runtime.tflite_check`) is what keeps
LiteRT from reading out of bounds, and is also checked on its own here."""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FUZZ_CASES = 300
FUZZ_SEED = 15


@pytest.fixture(scope="module")
def library():
    if shutil.which(os.environ.get("CXX", "g++")) is None:
        pytest.skip("no C++ compiler: the custom-op library cannot be built")
    from keras_skim import litert_ops

    return litert_ops.library_path()


@pytest.fixture(scope="module")
def every_export(library, exported, custom_exported, tmp_path_factory):
    """{name: export folder}: Skim-LSTM (builtin, custom), LSTM, scoRNN,
    Structural-Jump-LSTM (builtin, custom). The Skim-LSTM and LSTM ones are
    the session's trained exports (tests/conftest.py); the others are tiny untrained models."""
    from keras_skim.datasets.tokenizer import Tokenizer
    from keras_skim.export.exporter import export_model
    from tests.export.test_scornn_export import _model as scornn_model
    from tests.export.test_structural_jump_export import V as SJ_VOCABULARY
    from tests.export.test_structural_jump_export import _model as sj_model

    root = tmp_path_factory.mktemp("every_export")
    folders = {"skim_builtin": exported("skim")[1], "lstm_builtin": exported("lstm")[1]}
    folders["skim_custom"] = custom_exported("skim")
    scornn = root / "scornn"
    scornn.mkdir()
    scornn_model()[0].save(scornn / "model.keras")
    Tokenizer(vocabulary=["<pad>", "<unk>"] + [f"w{i}" for i in range(2, 40)]).save(str(scornn / "tokenizer.json"))
    folders["scornn_builtin"] = str(root / "scornn_builtin")
    export_model(str(scornn), folders["scornn_builtin"], parity_samples=1)
    sj = root / "sj"
    sj.mkdir()
    sj_model("mixed").save(sj / "model.keras")
    words = [f"w{i}" for i in range(5, SJ_VOCABULARY)]
    Tokenizer(vocabulary=["<pad>", "<unk>", ",", ".", "'"] + words).save(str(sj / "tokenizer.json"))
    for backend in ("builtin", "custom"):
        folders[f"sj_{backend}"] = str(root / f"sj_{backend}")
        export_model(str(sj), folders[f"sj_{backend}"], backend=backend, parity_samples=1)
    return folders


def _model(folder):
    from ai_edge_litert import schema_py_generated as schema

    data = open(os.path.join(folder, "model.tflite"), "rb").read()
    return schema, data, schema.Model.GetRootAsModel(data, 0)


def _field(table, field):
    """Absolute position of a table's field (flatbuffers object API)."""
    offset = table._tab.Offset(4 + 2 * field)
    assert offset, field
    return table._tab.Pos + offset


def _element(table, field, index):
    """Absolute position of element `index` of a table's vector of 4-byte items."""
    return table._tab.Vector(table._tab.Offset(4 + 2 * field)) + 4 * index


def _first_op(schema, model, code):
    graph = model.Subgraphs(0)
    for k in range(graph.OperatorsLength()):
        op = graph.Operators(k)
        opcode = model.OperatorCodes(op.OpcodeIndex())
        if max(opcode.BuiltinCode(), opcode.DeprecatedBuiltinCode()) == code:
            return op
    raise AssertionError(f"no operator {code}")


def targeted_damage(folders):
    """Hand-made models: [folder, what, [[byte, new int32 value], ...]].
    Without the structural check the custom-op input -1, the WHILE that
    calls itself, the STRIDED_SLICE without its end and the tensor named
    twice crash the process."""
    schema, _, custom = _model(folders["skim_custom"])
    custom_op = _first_op(schema, custom, schema.BuiltinOperator.CUSTOM)
    _, _, lstm = _model(folders["lstm_builtin"])
    loop = _first_op(schema, lstm, schema.BuiltinOperator.WHILE)
    body = schema.WhileOptions()
    body.Init(loop.BuiltinOptions().Bytes, loop.BuiltinOptions().Pos)
    biggest = max(range(lstm.BuffersLength()), key=lambda b: lstm.Buffers(b).DataLength())
    constant = next(
        t
        for t in range(custom.Subgraphs(0).TensorsLength())
        if custom.Buffers(custom.Subgraphs(0).Tensors(t).Buffer()).DataLength()
    )
    constant_shape = custom.Subgraphs(0).Tensors(constant).Shape(0)
    graph = lstm.Subgraphs(0)
    coded = next(graph.Operators(k) for k in range(graph.OperatorsLength()) if graph.Operators(k).OpcodeIndex())
    slicing = _first_op(schema, lstm, schema.BuiltinOperator.STRIDED_SLICE)
    _, _, sj_builtin = _model(folders["sj_builtin"])
    signature = sj_builtin.SignatureDefs(0)
    # (a jump model's signature takes token_ids alone, whose tensor may be 0: an output then)
    entries = [signature.Inputs(i) for i in range(signature.InputsLength())]
    entries += [signature.Outputs(i) for i in range(signature.OutputsLength())]
    named = next(entry for entry in entries if entry.TensorIndex())
    _, _, sj = _model(folders["sj_custom"])
    sj_op = _first_op(schema, sj, schema.BuiltinOperator.CUSTOM)
    outputs = sj.SignatureDefs(0)
    twice, last = outputs.Outputs(1), outputs.Outputs(outputs.OutputsLength() - 1)
    assert twice.TensorIndex() and twice.TensorIndex() != last.TensorIndex()
    scan, position, scalar = _loop_output_to_scalar(schema, lstm)
    return [
        [folders["skim_custom"], "custom-op input -1", [[_element(custom_op, 1, 0), -1]]],
        [folders["lstm_builtin"], "WHILE body is its own subgraph", [[_field(body, 1), 0]]],
        [
            folders["lstm_builtin"],
            "operator output out of range",
            [[_element(lstm.Subgraphs(0).Operators(0), 2, 0), 10**6]],
        ],
        [folders["lstm_builtin"], "operator code out of range", [[_field(coded, 0), 4000]]],
        [folders["lstm_builtin"], "buffer longer than the file", [[_element(lstm.Buffers(biggest), 0, -1), 1 << 30]]],
        [
            folders["skim_custom"],
            "constant shape doubled",
            [[_element(custom.Subgraphs(0).Tensors(constant), 0, 0), 2 * constant_shape]],
        ],
        [
            folders["sj_builtin"],
            "signature tensor out of range",
            [[_field(named, 1), 99999]],
        ],
        [folders["lstm_builtin"], "STRIDED_SLICE end -1", [[_element(slicing, 1, 2), -1]]],
        [folders["sj_custom"], "custom-op output -1", [[_element(sj_op, 2, 0), -1]]],
        [folders["sj_custom"], "signature tensor named twice", [[_field(twice, 1), last.TensorIndex()]]],
        [folders["lstm_builtin"], "WHILE body gives a scalar for a vector", [[_element(scan, 2, position), scalar]]],
    ]


def _loop_output_to_scalar(schema, model):
    """(body subgraph, output position, tensor) that turn a vector output of
    the first WHILE's body into one of the body's scalar constants: one
    flipped bit in a Skim-LSTM export did this, and LiteRT's loop then ran
    forever on a 24-token input (tests/runtime/fuzz_exports.py, seed 100)."""
    loop = _first_op(schema, model, schema.BuiltinOperator.WHILE)
    options = schema.WhileOptions()
    options.Init(loop.BuiltinOptions().Bytes, loop.BuiltinOptions().Pos)
    body = model.Subgraphs(options.BodySubgraphIndex())
    tensors = [body.Tensors(t) for t in range(body.TensorsLength())]
    scalar = next(
        t
        for t, tensor in enumerate(tensors)
        if tensor.ShapeLength() == 0 and model.Buffers(tensor.Buffer()).DataLength()
    )
    outputs = body.OutputsAsNumpy().tolist()
    position = max(p for p, t in enumerate(outputs) if tensors[t].ShapeLength() == 1)
    return body, position, scalar


def test_damaged_exports_of_every_kind_never_crash(every_export, tmp_path):
    """Seeded bit flips, overwritten words and truncations of every export,
    in one subprocess that never imports TensorFlow: no signal, no escaped
    exception, every refusal one line; the hand-made models are refused."""
    targeted = targeted_damage(every_export)
    plan = {
        "exports": sorted(every_export.values()),
        "cases": FUZZ_CASES,
        "seed": FUZZ_SEED,
        "work": str(tmp_path),
        "targeted": targeted,
        "case_seconds": 60,
    }
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    env = dict(os.environ, PYTHONPATH=ROOT)
    proc = subprocess.run(
        [sys.executable, "-m", "tests.runtime.fuzz_exports", str(tmp_path / "plan.json")],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
        env=env,
    )
    lines = proc.stdout.splitlines()
    last_case = [line for line in lines if line.startswith("CASE")][-1:]
    assert not [line for line in lines if line.startswith("HANG")], [line for line in lines if line.startswith("HANG")]
    assert proc.returncode == 0, (proc.returncode, last_case, proc.stderr[-2000:])
    summary = json.loads([line for line in lines if line.startswith("SUMMARY")][0][len("SUMMARY ") :])
    assert summary["failures"] == [], summary["failures"][:10]
    assert summary["heavy_modules"] == []
    counts = summary["counts"]
    assert sum(counts.values()) == FUZZ_CASES + len(targeted), counts
    # Both outcomes occur: damage the check refuses, and damage to numbers that runs.
    assert counts.get("refused", 0) > FUZZ_CASES // 4 and counts.get("ran", 0) > FUZZ_CASES // 10, counts
    outcomes = dict(line[len("OUTCOME ") :].split(" => ", 1) for line in lines if line.startswith("OUTCOME"))
    for folder, what, _ in targeted:
        outcome = outcomes[f"{os.path.basename(folder)} {what}"]
        assert outcome.startswith("refused: ") and "malformed" in outcome, (what, outcome)


def test_the_check_accepts_every_export_and_names_what_is_wrong(every_export):
    from keras_skim.runtime.tflite_check import ModelCheckError, check_model

    for name, folder in every_export.items():
        summary = check_model(open(os.path.join(folder, "model.tflite"), "rb").read())
        assert summary.custom_ops == (
            ("KerasSkimLSTM",) if name == "skim_custom" else ("KerasSjLSTM",) if name == "sj_custom" else ()
        ), name
    expected = {
        "custom-op input -1": "input 0 tensor index -1 out of range",
        "STRIDED_SLICE end -1": "input 2 tensor index -1 out of range",
        "WHILE body is its own subgraph": "calls itself",
        "operator output out of range": "output tensor index 1000000 out of range",
        "operator code out of range": "operator code index 4000 out of range",
        "buffer longer than the file": "runs past the end of the file",
        "constant shape doubled": "needs",
        "signature tensor out of range": "tensor index 99999 out of range",
        "custom-op output -1": "output tensor index -1 out of range",
        "signature tensor named twice": "repeats a name or a tensor",
        "WHILE body gives a scalar for a vector": "passes tensors that subgraph 2 does not take or give",
    }
    for folder, what, edits in targeted_damage(every_export):
        data = bytearray(open(os.path.join(folder, "model.tflite"), "rb").read())
        for pos, value in edits:
            data[pos : pos + 4] = int(value).to_bytes(4, "little", signed=True)
        with pytest.raises(ModelCheckError, match=expected[what]) as info:
            check_model(bytes(data))
        assert "\n" not in str(info.value)
    for data in (b"", b"1234TFL3", b"\xff\xff\xff\x7fTFL3" + bytes(64)):
        with pytest.raises(ModelCheckError):
            check_model(data)


def test_low_level_runner_refuses_ids_outside_int32(every_export):
    """int64 ids are range-checked, not wrapped (2**32 + 5 would run as 5)."""
    from keras_skim.runtime.litert_runner import LiteRtModel

    data = open(os.path.join(every_export["skim_custom"], "model.tflite"), "rb").read()
    run = LiteRtModel(data).get_signature_runner("serving_default")
    ok = run(token_ids=np.array([[5]], np.int64), threshold=np.float32(0.5))
    assert ok["read_count"].shape == (1,)
    for bad in (2**32 + 5, -(2**31) - 1):
        with pytest.raises(ValueError, match="takes int32: values must lie in"):
            run(token_ids=np.array([[5, bad]], np.int64), threshold=np.float32(0.5))


def _never_ending_model(path):
    """A well-formed export whose loop never advances: `i < sum(ids) + 1`
    with `i` kept at 0, a condition no structural check can decide."""
    import tensorflow as tf

    @tf.function(input_signature=[tf.TensorSpec([1, None], tf.int32, name="token_ids")])
    def serve(token_ids):
        limit = tf.reduce_sum(token_ids) + 1
        i = tf.while_loop(lambda i: i < limit, lambda i: i * tf.reduce_max(token_ids), [tf.constant(0)])[0]
        mask = tf.zeros_like(token_ids) + i
        return {"logits": tf.cast(mask[:, :1], tf.float32), "read_mask": mask, "read_count": tf.reduce_sum(mask, 1)}

    module = tf.Module()
    module.serve = serve
    saved = os.path.join(os.path.dirname(path), "saved_model")
    tf.saved_model.save(module, saved, signatures={"serving_default": serve})
    converter = tf.lite.TFLiteConverter.from_saved_model(saved)
    with open(path, "wb") as f:
        f.write(converter.convert())


def test_an_export_whose_loop_never_ends_is_one_line_and_exit_2(exported, tmp_path):
    """`keras-skim bench` on an export that runs forever in LiteRT ends at its
    run deadline (KERAS_SKIM_RUN_DEADLINE seconds + 1 ms per token), with
    one stderr line naming the model and status 2, and no signal."""
    import shutil

    _, folder, _ = exported("lstm")
    hostile = tmp_path / "hostile"
    shutil.copytree(folder, hostile)
    _never_ending_model(str(tmp_path / "model.tflite"))
    shutil.copy(tmp_path / "model.tflite", hostile / "model.tflite")
    env = dict(os.environ, PYTHONPATH=ROOT, KERAS_SKIM_RUN_DEADLINE="2")
    proc = subprocess.run(
        [sys.executable, "-m", "keras_skim.cli.main", "bench", str(hostile), "--samples", "1", "--repeats", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=env,
    )
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "did not end within 2 s" in lines[0] and "model.tflite" in lines[0], lines
