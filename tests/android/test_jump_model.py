"""The app with a Structural-Jump-LSTM: its mask codes (read, skipped, jumped, punctuation), the
highlighting and summary of `keras-skim show`, Flop-r and the Benchmark report of `keras-skim
bench`, checked against the Python code they port; and the release pipeline's catalog and
golden files of a real jump-model export, through the Java core and the JNI shim."""

import json
import math
import os
import random
import types

import numpy as np
import pytest

from keras_skim import contracts
from keras_skim.cli.show_command import render_terminal
from keras_skim.runtime import bench
from keras_skim.runtime.runner import probabilities_from_logits
from tests.android.test_core_with_jni_shim import native_probe  # noqa: F401  (a fixture)
from tests.android.test_highlight_and_bench import LSTM_META, _assert_same, _Clock, _FakeRunner, _script

R, S, J, P = (contracts.TOKEN_READ, contracts.TOKEN_SKIMMED, contracts.TOKEN_JUMPED, contracts.TOKEN_NOT_A_WORD)
SJ_META = {
    "format": "keras_skim.export",
    "model_kind": "structural_jump_lstm",
    "units": 16,
    "small_units": 0,
    "embedding_dim": 50,
    "agent_units": 4,
    "vocabulary_size": 1000,
    "num_classes": 2,
    "output_activation": "softmax",
    "max_length": None,
    "default_threshold": None,
    "backend": "builtin",
    "custom_ops": [],
}


def test_mask_codes_of_a_jump_model_are_the_contracts(probe):
    java = probe.call("metadata", text=json.dumps(SJ_META))
    assert java["jumps"] and not java["skims"] and java["agent_units"] == 4
    states = java["states_of_codes_0_1_2"] + [java["state_of_code_3"]]
    assert states == ["SKIMMED", "READ", "JUMPED", "NOT_A_WORD"]
    names = {"skimmed": "SKIMMED", "read": "READ", "jumped": "JUMPED", "not a word": "NOT_A_WORD"}
    assert [names[contracts.TOKEN_CODES[code]] for code in range(4)] == states
    # Codes named in the metadata, with the contracts' names, mean what they say.
    meta = dict(SJ_META, outputs={"read_mask": {"codes": {str(k): v for k, v in contracts.TOKEN_CODES.items()}}})
    java = probe.call("metadata", text=json.dumps(meta))
    assert java["states_of_codes_0_1_2"] + [java["state_of_code_3"]] == states
    assert "must be positive" in probe.call("metadata", text=json.dumps(dict(SJ_META, agent_units=0)))["error"]


def test_highlight_is_keras_skim_show(probe):
    tokens = ["a", "moving", ",", "funny", "and", "brilliant", "film", ".", "the", "cast"]
    codes = [R, S, P, R, J, J, J, P, R, J]
    answer = probe.call("highlight", tokens=tokens, codes=codes, metadata=json.dumps(SJ_META))
    assert answer["plain"] == render_terminal(tokens, codes, color=False)
    assert answer["plain"] == "a [moving] , funny {and} {brilliant} {film} . the {cast}"
    assert [s[2] for s in answer["segments"]] == [
        "READ",
        "SKIMMED",
        "NOT_A_WORD",
        "READ",
        "JUMPED",
        "JUMPED",
        "JUMPED",
        "NOT_A_WORD",
        "READ",
        "JUMPED",
    ]


@pytest.mark.parametrize("codes", [[R, S, P, R, J, J, J, P, R, J], [P, P], [J, R, P]])
def test_summary_says_read_skip_and_jump_of_the_words(probe, codes):
    tokens = [f"t{i}" for i in range(len(codes))]
    logits = [0.2, 1.3]
    answer = probe.call(
        "prediction",
        tokens=tokens,
        codes=codes,
        logits=logits,
        metadata=json.dumps(SJ_META),
        labels=["negative", "positive"],
    )
    assert answer["jumps"] and answer["plain"] == render_terminal(tokens, codes, color=False)
    p = probabilities_from_logits(np.asarray(logits, np.float32), "softmax")
    head = f"positive ({100 * p[1]:.1f}%)"
    words = sum(c != P for c in codes)
    if words == 0:
        assert answer["summary"] == head + "; the text has no words (punctuation is not read)"
        return
    read, skipped, jumped = codes.count(R), codes.count(S), codes.count(J)
    # the words of keras-skim show's summary line
    assert answer["summary"] == head + (
        f"; read {read} of {words} words ({read / words:.0%}), skipped "
        f"{skipped / words:.0%}, jumped {jumped / words:.0%}"
    )


@pytest.mark.parametrize("counts", [(7, 5, 4), (100, 30, 12), (1, 1, 1), (40, 40, 0), (3, 0, 0)])
def test_jump_flop_r_is_the_benchs(probe, counts):
    for meta in (SJ_META, {k: v for k, v in SJ_META.items() if k != "agent_units"}):
        java = probe.call("metadata", text=json.dumps(meta), jump_counts=[list(counts)])["jump_flop_r"][0]
        expected = bench.jump_summary(meta, [counts[0]], [counts[1]], [counts[2]])["flop_r"]
        if expected is None:
            assert java is None
        else:
            assert math.isclose(java, expected, rel_tol=1e-12)


class _JumpRunner(_FakeRunner):
    def run_ids(self, ids, threshold=None):
        out = super().run_ids(ids, threshold)
        k = self.script["ids"].index(list(ids))
        out["read_mask"] = np.asarray([self.script["masks"][k]], np.int32)
        return out


def _masks(rng, ids):
    masks = []
    for row in ids:
        mask = [rng.choice([R, R, S, J, P]) for _ in row]
        masks.append(mask)
    return masks


def _request(model, baseline, texts, labels, repeats, jitter):
    return dict(
        model=model,
        baseline=baseline,
        model_metadata=json.dumps(SJ_META),
        baseline_metadata=json.dumps(LSTM_META),
        texts=texts,
        labels=labels,
        thresholds=[0.0],
        repeats=repeats,
        warmup=1,
        jitter=list(jitter),
        description="five test texts",
        platform="Linux-6.1-x86_64",
        processor="x86_64",
        cpu_count=2,
        runtime="Python 3.11.2",
        versions={"ai-edge-litert": "2.3.0"},
        command="keras-skim bench sj --baseline lstm",
        peak_rss_mb=99.5,
    )


@pytest.mark.parametrize("with_baseline", [True, False])
def test_benchmark_of_a_jump_model_equals_keras_skim_bench(probe, monkeypatch, with_baseline):
    rng = random.Random(7)
    texts = [f"text {k}" for k in range(5)]
    ids = [[rng.randint(2, 999) for _ in range(n)] for n in (7, 1, 12, 30, 4)]
    masks = _masks(rng, ids)
    model = _script(
        texts,
        ids,
        [rng.randint(5_000, 90_000) for _ in ids],
        [m.count(R) for m in masks],
        [[rng.uniform(-3, 3), rng.uniform(-3, 3)] for _ in ids],
    )
    model["masks"] = masks
    base = _script(texts, ids, [rng.randint(20_000, 200_000) for _ in ids], [len(i) for i in ids], [[0.0] for _ in ids])
    labels = [1, 0, 1, 1, 0]
    jitter = [1.0, 1.21, 0.93, 1.05]
    answer = probe.call("bench", **_request(model, base if with_baseline else None, texts, labels, 3, jitter))

    clock = _Clock(jitter)
    monkeypatch.setattr(bench, "time", types.SimpleNamespace(perf_counter=lambda: clock.now))
    fake_model = _JumpRunner("model.tflite", SJ_META, model, clock)
    fake_base = _FakeRunner("baseline.tflite", LSTM_META, base, clock) if with_baseline else None
    (java,) = answer["report"]["results"]
    expected = bench.bench_threshold(
        fake_model, fake_base, [np.asarray(i) for i in ids], [np.asarray(i) for i in ids], labels, 0.0, 3
    )
    del clock.calls[-len(ids) :]  # Python's untimed re-runs for the counts
    _assert_same(java, expected)
    assert answer["calls"] == clock.calls
    words = sum(sum(c != P for c in m) for m in masks)
    assert java["words"] == words and java["read_fraction"] == pytest.approx(sum(m.count(R) for m in masks) / words)
    # The report's text is keras-skim bench's, jump table included.
    report = dict(answer["report"])
    machine = dict(report["machine"])
    machine["python"] = machine.pop("runtime").replace("Python ", "")
    report["machine"] = machine
    assert answer["markdown"] == bench.markdown_report(report)
    assert "| words | read | skip | jump |" in answer["markdown"]
    assert "(structural_jump_lstm, d=16, builtin backend)" in answer["markdown"]


# ---- with a real Structural-Jump-LSTM export ----


@pytest.fixture(scope="module")
def jump_release(tmp_path_factory, exported):
    """The pipeline's assets from a real jump-model export (builtin backend) and the LSTM: the
    session's two exports only (not `tiny_exports`, whose Skim-LSTM exports it does not use).
    The pipeline's `main` runs in this process: the shared `release` fixture runs it as a script,
    and a second interpreter would import TensorFlow again for nothing."""
    from tests.android.conftest import build_assets, run_pipeline_in_process

    root = tmp_path_factory.mktemp("jump_release")
    _, sj, _ = exported("sj")
    exports = {"structural_jump_lstm_builtin": sj, "lstm_builtin": exported("lstm")[1]}
    build_assets(root, exports.values(), run_pipeline_in_process)
    assets = root / "assets"
    return {
        "assets": str(assets),
        "output": str(assets / "keras_skim"),
        "golden": str(root / "golden"),
        "exports": exports,
    }


def test_catalog_and_golden_files_of_a_jump_model(probe, jump_release):
    from keras_skim.runtime import SkimRunner

    with open(os.path.join(jump_release["output"], "catalog.json"), encoding="utf-8") as f:
        catalog = json.load(f)
    entry = catalog["models"][0]
    assert entry["id"] == "structural_jump_lstm_builtin" and entry["title"] == "Structural-Jump-LSTM (builtin ops)"
    assert catalog["baseline"] == "lstm_builtin"
    with open(os.path.join(jump_release["golden"], entry["id"] + ".json"), encoding="utf-8") as f:
        golden = json.load(f)
    runner = SkimRunner(os.path.join(jump_release["output"], entry["id"]))
    plain = next(c for c in golden["cases"] if c["name"] == "plain")
    assert plain["tokens"][-1] == "." and all(run["read_mask"][-1] == P for run in plain["runs"])
    for case in golden["cases"]:
        ids, _ = runner.encode(case["text"])
        for run in case["runs"]:
            out = runner.run_ids(ids, run["threshold"])
            mask = np.rint(np.asarray(out["read_mask"], np.float64)).reshape(-1).astype(int).tolist()
            assert run["read_mask"] == mask
            assert run["read_count"] == run["read_mask"].count(R)
        assert len({json.dumps(run) for run in [dict(r, threshold=0) for r in case["runs"]]}) == 1  # no threshold
    answer = probe.call("golden_tokens", assets=jump_release["assets"], golden=jump_release["golden"])
    assert all(result["problems"] == [] for result in answer.values())
    problems = probe.call(
        "golden_replay",
        assets=jump_release["assets"],
        model=entry["id"],
        golden=os.path.join(jump_release["golden"], entry["id"] + ".json"),
        tolerance=1e-5,
    )
    assert problems == []


def test_jump_model_through_the_jni_shim(jump_release, native_probe, shim):  # noqa: F811 (fixtures)
    """GoldenCheck and the Benchmark button with the real shim and LiteRT."""
    answer = native_probe.call(
        "native_golden", library=shim[0], assets=jump_release["assets"], golden=jump_release["golden"], tolerance=1e-5
    )
    assert sorted(answer) == sorted(jump_release["exports"])
    assert all(problems == [] for problems in answer.values()), answer
    report = native_probe.call(
        "native_bench",
        library=shim[0],
        assets=jump_release["assets"],
        model="structural_jump_lstm_builtin",
        thresholds=[0.0],
        repeats=1,
    )
    (result,) = report["report"]["results"]
    assert result["words"] > 0 and 0 <= result["jump_fraction"] <= 1
    assert "| words | read | skip | jump |" in report["markdown"]


def test_catalog_takes_a_jump_model_export(tmp_path):
    from export import release_assets

    exports = [
        (str(tmp_path / "sj"), dict(SJ_META, backend="custom")),
        (str(tmp_path / "sj_b"), SJ_META),
        (str(tmp_path / "lstm"), dict(LSTM_META, format="keras_skim.export")),
    ]
    catalog = release_assets.catalog(exports)
    assert [m["id"] for m in catalog["models"]] == [
        "structural_jump_lstm_custom",
        "structural_jump_lstm_builtin",
        "lstm_builtin",
    ]
    assert [m["title"] for m in catalog["models"]] == [
        "Structural-Jump-LSTM (custom op)",
        "Structural-Jump-LSTM (builtin ops)",
        "LSTM (baseline)",
    ]
    assert catalog["baseline"] == "lstm_builtin"
    assert catalog["models"][0]["model"] == "structural_jump_lstm_custom/model.tflite"
