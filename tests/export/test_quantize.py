"""`keras-skim export --quantize int8` for both backends: smaller files,
metadata that says so, and parity held to the documented standard (custom:
exact against its own dequantized weights; builtin: INT8_AGREEMENT)."""

import json
import os

import numpy as np
import pytest

from tests.export.helpers import run_cli


@pytest.mark.parametrize("backend", ["builtin", "custom"])
def test_int8_export(trained_folder, exported, tmp_path, backend, op_cache):
    from keras_skim.export.parity import INT8_AGREEMENT
    from keras_skim.runtime import SkimRunner

    out = tmp_path / "int8"
    code, stdout, stderr = run_cli(
        [
            "export",
            trained_folder("skim"),
            "-o",
            str(out),
            "--backend",
            backend,
            "--quantize",
            "int8",
            "--parity-samples",
            "2",
        ]
    )
    assert code == 0, stderr
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["quantize"] == "int8" and meta["backend"] == backend and meta["parity"]["ok"]
    if backend == "custom":
        assert meta["parity"]["against"] == "its dequantized weights"
        assert meta["parity"]["mismatched_decisions"] == 0
        assert meta["parity"]["tolerance"] == {"decisions": 1.0, "atol": 1e-4}
    else:
        assert meta["parity"]["against"] == "Keras"
        assert meta["parity"]["tolerance"] == {"decisions": INT8_AGREEMENT.decisions, "atol": INT8_AGREEMENT.atol}
        agreement = 1 - meta["parity"]["mismatched_decisions"] / meta["parity"]["decisions"]
        assert agreement >= INT8_AGREEMENT.decisions
    # The largest constant (the embedding or its folded table) is int8 now,
    # and the file is smaller than the float export's.
    _, float_dir, _ = exported("skim")
    float_size = os.path.getsize(os.path.join(float_dir, "model.tflite"))
    assert meta["tflite_bytes"] < float_size
    assert _largest_constant_type((out / "model.tflite").read_bytes()) == "INT8"
    runner = SkimRunner(out)
    probabilities, mask, tokens = runner.classify("a moving and brilliant film", threshold=0.5)
    assert np.isclose(probabilities.sum(), 1.0) and len(mask) == len(tokens) == 5


def test_unknown_quantization_is_refused(trained_folder, tmp_path):
    from tests.assertions import one_line

    code, _, err = run_cli(["export", trained_folder("lstm"), "-o", str(tmp_path / "x"), "--quantize", "int4"])
    assert code == 2 and "--quantize" in one_line(err) and not (tmp_path / "x").exists()


def _largest_constant_type(flatbuffer):
    from ai_edge_litert import schema_py_generated as schema

    model = schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(flatbuffer, 0))
    names = {v: k for k, v in vars(schema.TensorType).items() if not k.startswith("_")}
    sizes = {i: (len(b.data) if b.data is not None else 0) for i, b in enumerate(model.buffers)}
    tensors = [t for g in model.subgraphs for t in g.tensors]
    largest = max(tensors, key=lambda t: sizes.get(t.buffer, 0))
    return names[largest.type]
