"""The app's core end to end on the desktop JVM with the real JNI shim: the pipeline's assets
opened through ModelRepository / DemoModel / NativeModel, every golden file checked with
GoldenCheck (tokens, ids, read masks, read counts, logits within 1e-5 of the Python runner),
and the Benchmark button's report on real runs.

The shim (app/src/main/cpp) is built with CMake against the JDK's JNI headers (the `shim`
fixture of tests/android/conftest.py); the LiteRT C library is the ai-edge-litert wheel's
libLiteRt.so."""

import json
import os

import numpy as np
import pytest

from tests.android.conftest import APP_MAIN, Probe


@pytest.fixture(scope="module")
def native_probe(java_classes, shim):
    p = Probe(java_classes, env=dict(os.environ, KERAS_SKIM_LITERT_LIB=shim[1]))
    yield p
    p.close()


def test_every_golden_file_through_the_shim(native_probe, shim, release):
    answer = native_probe.call(
        "native_golden", library=shim[0], assets=release["assets"], golden=release["golden"], tolerance=1e-5
    )
    assert sorted(answer) == sorted(release["exports"])
    for model_id, problems in answer.items():
        assert problems == [], (model_id, problems[:5])


def test_committed_golden_files_through_the_shim(native_probe, shim):
    """The models a fresh clone's app runs (android_demo/app/src/main/assets/keras_skim/, with the
    jump model's custom op) give their committed golden files through NativeModel."""
    from export import release_assets

    answer = native_probe.call(
        "native_golden",
        library=shim[0],
        assets=os.path.join(APP_MAIN, "assets"),
        golden=release_assets.DEFAULT_GOLDEN,
        tolerance=1e-5,
    )
    with open(os.path.join(release_assets.DEFAULT_OUTPUT, "catalog.json"), encoding="utf-8") as f:
        assert sorted(answer) == sorted(m["id"] for m in json.load(f)["models"])
    for model_id, problems in answer.items():
        assert problems == [], (model_id, problems[:5])


def test_benchmark_button_on_real_runs(native_probe, shim, release):
    """BenchRunner on the shim: skim rate, Flop-R and accuracy are those of the Python runner."""
    from keras_skim.runtime import SkimRunner
    from keras_skim.runtime.bench import flop_r
    from keras_skim.runtime.runner import probabilities_from_logits

    model_id = "skim_lstm_custom" if "skim_lstm_custom" in release["exports"] else "skim_lstm_builtin"
    thresholds = [0.0, 0.5, 1.5]
    answer = native_probe.call(
        "native_bench", library=shim[0], assets=release["assets"], model=model_id, thresholds=thresholds, repeats=2
    )
    with open(os.path.join(release["output"], "bench_texts.json"), encoding="utf-8") as f:
        texts = json.load(f)
    runner = SkimRunner(os.path.join(release["output"], model_id))
    for threshold, result in zip(thresholds, answer["report"]["results"]):
        reads = tokens = correct = 0
        for text, label in zip(texts["texts"], texts["labels"]):
            ids, _ = runner.encode(text)
            out = runner.run_ids(ids, threshold)
            reads += int(np.asarray(out["read_count"]).reshape(-1)[0])
            tokens += max(len(ids), 1)
            p = probabilities_from_logits(out["logits"], runner.metadata.get("output_activation"))
            correct += int(np.argmax(p)) == label
        assert result["tokens"] == tokens
        assert result["skim_rate"] == pytest.approx(1 - reads / tokens)
        assert result["flop_r"] == pytest.approx(flop_r(runner.metadata, 1 - reads / tokens))
        assert result["accuracy"] == pytest.approx(correct / len(texts["texts"]))
        assert result["model_latency"]["runs"] == result["baseline_latency"]["runs"] == 2 * len(texts["texts"])
        assert result["model_latency"]["median_us"] > 0 and result["speedup"] > 0
    assert answer["markdown"].startswith("# keras-skim bench\n")


def test_a_stacked_bidirectional_export_runs_in_the_app(native_probe, shim, tmp_path):
    """The README's stacked model (`Bidirectional(RNN(SkimLSTMCell)) -> RNN(SkimLSTMCell)`,
    issue 19 item 1), exported by `keras-skim export` (the builtin graph, extra read masks per
    layer and direction) and bundled by the pipeline: NativeModel gives its golden file (logits,
    layer 0's forward read mask and count, as the Python runner) through the shim."""
    from tests.android.conftest import run_pipeline
    from tests.export.helpers import run_cli
    from tests.export.test_stacked_export import _fit_and_save, _readme_model

    path = _fit_and_save(_readme_model(), str(tmp_path / "run"), 3)
    code, _, err = run_cli(["export", path, "-o", str(tmp_path / "export"), "--parity-samples", "1"])
    assert code == 0, err
    with open(tmp_path / "export" / "metadata.json", encoding="utf-8") as f:
        assert len(json.load(f)["layers"]) == 2
    assets, golden = tmp_path / "assets", tmp_path / "golden"
    code, out, err = run_pipeline(
        "assets", "--from-exports", str(tmp_path / "export"), "-o", str(assets / "keras_skim"), "--golden", str(golden)
    )
    assert code == 0, err
    answer = native_probe.call("native_golden", library=shim[0], assets=str(assets), golden=str(golden), tolerance=1e-5)
    assert answer == {"skim_lstm_builtin": []}
    with open(golden / "skim_lstm_builtin.json", encoding="utf-8") as f:
        masks = [run["read_mask"] for case in json.load(f)["cases"] for run in case["runs"]]
    assert len({tuple(m) for m in masks}) > 1  # the masks compared vary
