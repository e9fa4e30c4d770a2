"""The app's committed assets (android_demo/app/src/main/assets/keras_skim/, written by
`python export/build_release.py assets --from-presets --jump-model`) and golden files (android_demo/golden/):
a fresh clone runs the demo with no Python step, so these files must be complete, small, and
agree with the library's runner and the app's Java core. (The JNI shim's check of the same
golden files is in test_core_with_jni_shim.py.)"""

import json
import os

import numpy as np
import pytest

from export import release_assets
from export.fixtures import FIXTURES, GOLDEN_THRESHOLDS
from keras_skim.contracts import MARKER_FILE
from keras_skim.output_folder import foreign_entries, written_files
from tests.android.conftest import APP_MAIN

ASSETS = os.path.join(APP_MAIN, "assets")
OUTPUT = release_assets.DEFAULT_OUTPUT
GOLDEN = release_assets.DEFAULT_GOLDEN
MODEL_IDS = ["skim_lstm_custom", "lstm_builtin", "structural_jump_lstm_custom"]
# What a clone carries for the app, in bytes: the three Rotten Tomatoes presets (20,000-word
# vocabularies; the LSTM float32, release_assets.PRESET_SETTINGS).
SIZE_LIMIT = 8 * 1024 * 1024


def _json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def catalog():
    path = os.path.join(OUTPUT, "catalog.json")
    assert os.path.isfile(path), f"{path} is missing: `python export/build_release.py assets --jump-model --force`"
    return _json(path)


def test_catalog_names_the_demo_models(catalog):
    assert [m["id"] for m in catalog["models"]] == MODEL_IDS
    assert catalog["default_model"] == "skim_lstm_custom" and catalog["baseline"] == "lstm_builtin"
    assert sorted(os.listdir(OUTPUT)) == sorted(MODEL_IDS + ["catalog.json", "bench_texts.json", MARKER_FILE])
    for entry in catalog["models"]:
        assert sorted(os.listdir(os.path.join(OUTPUT, entry["id"]))) == sorted(release_assets.EXPORT_FILES)
        meta = _json(os.path.join(OUTPUT, entry["metadata"]))
        assert release_assets.model_id(meta) == entry["id"]
        # binary: one sigmoid output or two softmax ones
        assert entry["labels"] == ["negative", "positive"] and meta["num_classes"] in (1, 2)
        # int8 weights in the custom-op models; the LSTM baseline float32 (release_assets.PRESET_SETTINGS)
        assert meta["quantize"] == (None if entry["id"] == "lstm_builtin" else "int8")
    texts = _json(os.path.join(OUTPUT, "bench_texts.json"))
    assert len(texts["texts"]) == len(texts["labels"]) == 100 and set(texts["labels"]) == {0, 1}


@pytest.mark.parametrize("folder", [OUTPUT, GOLDEN])
def test_committed_folders_are_what_the_pipeline_wrote(folder):
    """Their markers list exactly the committed files (size, sha256), so that the documented
    `build_release.py assets --jump-model --force` may replace them, and only them."""
    files = written_files(folder)
    assert files is not None and foreign_entries(folder, files) == []
    assert sorted(files) == sorted(
        os.path.relpath(os.path.join(d, f), folder).replace(os.sep, "/")
        for d, _, names in os.walk(folder)
        for f in names
        if f != MARKER_FILE
    )


def test_assets_are_small():
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(OUTPUT) for f in files)
    assert total <= SIZE_LIMIT, f"{OUTPUT}: {total} bytes"


@pytest.mark.parametrize("model_id", MODEL_IDS)
def test_golden_files_are_the_python_runner(model_id):
    """A fresh keras_skim.runtime.SkimRunner run of each committed model gives its golden file:
    the same tokens, ids and read masks, and logits within the app's tolerance (1e-5)."""
    from keras_skim.runtime import SkimRunner

    golden = _json(os.path.join(GOLDEN, model_id + ".json"))
    assert golden["model"] == model_id and golden["thresholds"] == list(GOLDEN_THRESHOLDS)
    names = [c["name"] for c in golden["cases"]]
    samples = len(_json(release_assets.SAMPLE_REVIEWS)["reviews"])
    assert names == [n for n, _ in FIXTURES] + [f"sample_review_{i}" for i in range(samples)]
    runner = SkimRunner(os.path.join(OUTPUT, model_id), num_threads=1)
    for case in golden["cases"]:
        ids, tokens = runner.encode(case["text"])
        assert case["token_ids"] == ids.tolist() and case["tokens"] == tokens
        for run in case["runs"]:
            out = runner.run_ids(ids, run["threshold"])
            np.testing.assert_allclose(np.asarray(out["logits"], np.float64).reshape(-1), run["logits"], atol=1e-5)
            assert run["read_mask"] == np.asarray(out["read_mask"]).reshape(-1).astype(int).tolist()
            assert run["read_count"] == int(np.asarray(out["read_count"]).reshape(-1)[0])


def test_models_read_skim_and_jump(catalog):
    """The demo shows something: on the sample reviews at threshold 0.5 the Skim-LSTM skims some
    words and reads others, the LSTM reads all, and the jump model both skips or jumps and reads."""
    reads = {}
    for model_id in MODEL_IDS:
        golden = _json(os.path.join(GOLDEN, model_id + ".json"))
        runs = [r for c in golden["cases"] if c["name"].startswith("sample_review") for r in c["runs"]]
        half = [r for r in runs if r["threshold"] == 0.5]
        reads[model_id] = sum(r["read_count"] for r in half) / sum(len(r["read_mask"]) for r in half)
    assert reads["lstm_builtin"] == 1.0
    assert 0.0 < reads["skim_lstm_custom"] < 1.0 and 0.0 < reads["structural_jump_lstm_custom"] < 1.0


def test_java_core_reads_every_committed_golden_file(probe, catalog):
    answer = probe.call("golden_tokens", assets=ASSETS, golden=GOLDEN)
    assert sorted(answer) == sorted(MODEL_IDS)
    for model_id, result in answer.items():
        assert result["problems"] == [], model_id


@pytest.mark.parametrize("model_id", MODEL_IDS)
def test_java_metadata_is_the_python_record(probe, model_id):
    """The Java side of the typed metadata record: ModelMetadata.java reads each committed
    metadata.json as the golden file says Python's ExportMetadata does (these exports predate
    class names and the threshold-free signature: the fallbacks)."""
    golden = _json(os.path.join(GOLDEN, model_id + ".json"))
    from keras_skim import contracts

    record = contracts.read_metadata(os.path.join(OUTPUT, model_id, "metadata.json"))
    assert golden["metadata"] == release_assets.app_metadata(record)
    java = probe.call("metadata", path=os.path.join(OUTPUT, model_id, "metadata.json"))
    assert {key: java[key] for key in golden["metadata"]} == golden["metadata"]
