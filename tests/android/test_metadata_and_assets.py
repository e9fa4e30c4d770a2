"""The app's reading of real exports and of the pipeline's assets: metadata.json, catalog.json,
bench_texts.json, the sample reviews, and every failure as a Problem value (never a crash)."""

import json
import math
import os
import shutil

import numpy as np
import pytest

from keras_skim.runtime.bench import flop_r

SKIM_RATES = [0.0, 0.25, 0.8, 1.0]


@pytest.mark.parametrize("name", ["skim_lstm_custom", "skim_lstm_builtin", "lstm_builtin"])
def test_metadata_of_real_exports(probe, tiny_exports, name):
    if name not in tiny_exports:
        pytest.skip("no C++ compiler (g++ or $CXX): the custom-op export cannot be built")
    path = os.path.join(tiny_exports[name], "metadata.json")
    with open(path, encoding="utf-8") as f:
        meta = json.load(f)
    java = probe.call("metadata", path=path, skim_rates=SKIM_RATES)
    for key in (
        "model_kind",
        "units",
        "small_units",
        "embedding_dim",
        "vocabulary_size",
        "num_classes",
        "output_activation",
        "max_length",
        "default_threshold",
        "backend",
        "custom_ops",
    ):
        assert java[key] == meta[key], key
    assert java["skims"] == meta["model_kind"].startswith("skim")
    assert java["baseline_flops_per_token"] == meta["flops"]["baseline_flops_per_token"]
    assert java["skim_flops_per_token"] == meta["flops"]["skim_flops_per_token"]
    for rate, value in zip(SKIM_RATES, java["flop_r"]):
        assert math.isclose(value, flop_r(meta, rate), rel_tol=1e-12)
    assert java["states_of_codes_0_1_2"] == ["SKIMMED", "READ", "JUMPED"]


def _metadata(tiny_exports, **changes):
    with open(os.path.join(tiny_exports["skim_lstm_builtin"], "metadata.json"), encoding="utf-8") as f:
        meta = json.load(f)
    meta.update(changes)
    return meta


def test_mask_codes_named_in_metadata(probe, tiny_exports):
    meta = _metadata(tiny_exports)
    meta["outputs"]["read_mask"]["codes"] = {"0": "jumped", "1": "read", "2": "skimmed"}
    assert probe.call("metadata", text=json.dumps(meta))["states_of_codes_0_1_2"] == ["JUMPED", "READ", "SKIMMED"]
    meta["outputs"]["read_mask"]["codes"] = {"zero": "read"}
    assert "must map integer codes" in probe.call("metadata", text=json.dumps(meta))["error"]


@pytest.mark.parametrize(
    "changes,message",
    [
        ({"format": "keras_skim.model"}, "not a keras_skim.export metadata file"),
        ({"units": None}, '"units" must be an integer'),
        ({"units": 1.5}, '"units" must be an integer'),
        ({"model_kind": 3}, '"model_kind" must be a string'),
        ({"num_classes": 0}, "must be positive"),
        ({"custom_ops": "KerasSkimLSTM"}, '"custom_ops" must be a JSON array'),
        ({"flops": []}, '"flops" must be a JSON object'),
    ],
)
def test_bad_metadata_is_one_line(probe, tiny_exports, changes, message):
    answer = probe.call("metadata", text=json.dumps(_metadata(tiny_exports, **changes)))
    assert message in answer["error"] and "\n" not in answer["error"]


def test_json_reader_agrees_with_python(probe):
    text = (
        '{"a": [1, -2, 3.5, 1e-05, -0.0, 12345678901, NaN, Infinity, -Infinity], "s": "\\u00e9\\ud83c\\udfac'
        '\\n\\t\\"\\\\/ \u212a", "n": null, "t": true, "f": false, "o": {"x": {}}, "e": []}'
    )
    java = probe.call("json", text=text)
    python = json.loads(text)
    assert java["s"] == python["s"] and java["o"] == python["o"] and java["e"] == [] and java["n"] is None
    assert java["t"] is True and java["f"] is False
    assert [str(v) for v in java["a"]] == [str(v) for v in python["a"]]
    assert isinstance(java["a"][0], int) and isinstance(java["a"][2], float)


@pytest.mark.parametrize("text", ['{"a": 1', '{"a" 1}', "[1, 2,]", '{"a": tru}', '"\\x"', "{} {}", ""])
def test_json_reader_refuses_bad_text(probe, text):
    with pytest.raises(AssertionError, match="JsonException: bad JSON at character"):
        probe.call("json", text=text)


def test_repository_reads_the_pipeline_assets(probe, release):
    answer = probe.call("repository", assets=release["assets"])
    with open(os.path.join(release["output"], "catalog.json"), encoding="utf-8") as f:
        catalog = json.load(f)
    assert answer["sample_reviews"] == 6
    assert answer["catalog"] == {
        "default_model": catalog["default_model"],
        "baseline": "lstm_builtin",
        "bench_texts": "keras_skim/bench_texts.json",
    }
    assert answer["bench_texts"]["texts"] == 4 and answer["bench_texts"]["labels"] == [1, 0, 1, 0]
    assert [m["id"] for m in answer["models"]] == [m["id"] for m in catalog["models"]]
    for java, entry in zip(answer["models"], catalog["models"]):
        assert java["files"] == "ok", java
        assert java["model"] == "keras_skim/" + entry["model"] and java["title"] == entry["title"]
        assert java["labels"] == ["negative", "positive"]
        assert java["model_buffer_direct"] is True
        assert java["model_bytes"] == os.path.getsize(os.path.join(release["output"], entry["model"]))


def test_loading_without_the_native_side_is_a_problem_not_a_crash(probe, release):
    """Without libkeras_skim_jni.so loaded, opening a model gives a Problem the UI shows."""
    answer = probe.call("repository", assets=release["assets"], open=True)
    for model in answer["models"]:
        assert model["open"]["problem"] in ("NATIVE_LIBRARY", "MODEL_LOAD"), model
        assert model["model"] in model["open"]["message"]


@pytest.fixture()
def assets_copy(release, tmp_path):
    target = tmp_path / "assets"
    shutil.copytree(release["assets"], target)
    return target


def _edit_json(path, change):
    with open(path, encoding="utf-8") as f:
        value = json.load(f)
    change(value)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f)


def _model(answer, model_id):
    return next(m for m in answer["models"] if m["id"] == model_id)


def test_missing_catalog(probe, tmp_path):
    answer = probe.call("repository", assets=str(tmp_path))
    assert answer["catalog"]["problem"] == "MISSING_ASSET"
    assert "keras_skim/catalog.json is not in" in answer["catalog"]["message"]
    assert "python export/build_release.py assets" in answer["catalog"]["message"]
    assert answer["sample_reviews"]["problem"] == "MISSING_ASSET"


def test_missing_model_file(probe, assets_copy):
    os.remove(assets_copy / "keras_skim" / "lstm_builtin" / "model.tflite")
    model = _model(probe.call("repository", assets=str(assets_copy)), "lstm_builtin")
    assert model["files"]["problem"] == "MISSING_ASSET"
    assert "keras_skim/lstm_builtin/model.tflite is not in" in model["files"]["message"]


def test_corrupt_metadata(probe, assets_copy):
    (assets_copy / "keras_skim" / "lstm_builtin" / "metadata.json").write_text('{"format": ', encoding="utf-8")
    model = _model(probe.call("repository", assets=str(assets_copy)), "lstm_builtin")
    assert model["files"]["problem"] == "BAD_METADATA"
    assert model["files"]["message"].startswith("keras_skim/lstm_builtin/metadata.json: bad JSON")


def test_metadata_that_contradicts_the_catalog(probe, assets_copy):
    _edit_json(assets_copy / "keras_skim" / "catalog.json", lambda c: c["models"][-1].update(model_kind="gru"))
    model = _model(probe.call("repository", assets=str(assets_copy)), "lstm_builtin")
    assert model["files"]["problem"] == "BAD_METADATA"
    assert (
        "a lstm model of the builtin backend, but keras_skim/catalog.json says gru / builtin"
        in model["files"]["message"]
    )


def test_tokenizer_larger_than_the_embedding(probe, assets_copy):
    _edit_json(assets_copy / "keras_skim" / "lstm_builtin" / "metadata.json", lambda m: m.update(vocabulary_size=3))
    model = _model(probe.call("repository", assets=str(assets_copy)), "lstm_builtin")
    assert model["files"]["problem"] == "BAD_TOKENIZER"
    assert "tokens but the model's embedding has 3 rows" in model["files"]["message"]


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda c: c.update(format="x"), "not a keras_skim.app_catalog file"),
        (lambda c: c.update(version=9), "unsupported catalog version 9"),
        (lambda c: c.update(baseline="gru_builtin"), '"gru_builtin" is not one of the catalog\'s models'),
        (lambda c: c["models"].append(dict(c["models"][0])), "appears twice"),
        (lambda c: c["models"][0].update(model="../../secret.tflite"), "must be a relative path inside the assets"),
        (lambda c: c.update(models=[]), '"models" is empty'),
    ],
)
def test_bad_catalog(probe, assets_copy, change, message):
    _edit_json(assets_copy / "keras_skim" / "catalog.json", change)
    answer = probe.call("repository", assets=str(assets_copy))
    assert answer["catalog"]["problem"] == "BAD_CATALOG" and message in answer["catalog"]["message"]


def test_bad_bench_texts(probe, assets_copy):
    _edit_json(assets_copy / "keras_skim" / "bench_texts.json", lambda t: t.update(labels=[1]))
    answer = probe.call("repository", assets=str(assets_copy))
    assert answer["bench_texts"]["problem"] == "BAD_CATALOG"
    assert '"labels" has 1 entries for 4 texts' in answer["bench_texts"]["message"]


@pytest.mark.parametrize("name", ["skim_lstm_custom", "skim_lstm_builtin", "lstm_builtin"])
def test_java_reads_class_names_and_the_signature_as_python(probe, tiny_exports, name):
    """A fresh export carries the training data's class names (issue 19.5) and a `threshold`
    input only where it applies (19.4); Java reads both as Python's typed record does."""
    from export.release_assets import app_metadata
    from keras_skim import contracts
    from keras_skim.runtime import SkimRunner

    if name not in tiny_exports:
        pytest.skip("no C++ compiler (g++ or $CXX): the custom-op export cannot be built")
    path = os.path.join(tiny_exports[name], "metadata.json")
    record = contracts.read_metadata(path)
    config = contracts.read_train_config(os.path.join(os.path.dirname(record.source_model), "train_config.json"))
    assert record.class_names == config.data["classes"] and len(record.class_names) == 2
    assert record.takes_threshold == name.startswith("skim")
    assert record.outputs["read_mask"].dtype == "int32"
    python = app_metadata(record)
    java = probe.call("metadata", path=path)
    assert {key: java[key] for key in python} == python
    runner = SkimRunner(tiny_exports[name])
    result = runner.classify("the movie was good and fun")
    assert result.label == record.class_names[result.predicted]
    assert np.asarray(runner.run_ids([3, 4, 5])["read_mask"]).dtype == np.int32
