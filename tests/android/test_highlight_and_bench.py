"""The app's highlighting, number formatting and Benchmark statistics against the Python code
they port (`keras-skim show`, `keras_skim.runtime.bench`), and against hand-computed values."""

import json
import math
import random
import types

import numpy as np
import pytest

from keras_skim.cli.show_command import render_terminal
from keras_skim.runtime import bench
from keras_skim.runtime.runner import probabilities_from_logits

SKIM_META = {
    "format": "keras_skim.export",
    "model_kind": "skim_lstm",
    "units": 100,
    "small_units": 10,
    "embedding_dim": 50,
    "vocabulary_size": 1000,
    "num_classes": 1,
    "output_activation": "sigmoid",
    "max_length": None,
    "default_threshold": 0.5,
    "backend": "custom",
    "custom_ops": ["KerasSkimLSTM"],
    "flops": {"baseline_flops_per_token": 100, "read_flops_per_token": 110, "skim_flops_per_token": 10},
}
LSTM_META = dict(
    SKIM_META,
    model_kind="lstm",
    small_units=0,
    default_threshold=None,
    backend="builtin",
    custom_ops=[],
    flops={"baseline_flops_per_token": 100, "read_flops_per_token": 100, "skim_flops_per_token": None},
)


def test_plain_rendering_is_keras_skim_show(probe):
    tokens = ["a", "dull", ",", "tedious", "mess", "of", "a", "film", "don't"]
    codes = [1, 0, 0, 1, 1, 0, 0, 1, 1]
    answer = probe.call("highlight", tokens=tokens, codes=codes, metadata=json.dumps(SKIM_META))
    assert answer["plain"] == render_terminal(tokens, codes, color=False)
    assert answer["text"] == " ".join(tokens)
    for (start, end, state), token, code in zip(answer["segments"], tokens, codes):
        assert answer["text"][start:end] == token
        assert state == ("READ" if code else "SKIMMED")


def test_jumped_tokens_are_shown_apart(probe):
    answer = probe.call(
        "highlight", tokens=["so", "it", "goes", "."], codes=[1, 2, 0, 1], metadata=json.dumps(SKIM_META)
    )
    assert answer["plain"] == "so {it} [goes] ."
    assert [s[2] for s in answer["segments"]] == ["READ", "JUMPED", "SKIMMED", "READ"]


def test_number_formatting_is_pythons(probe):
    """Python rounds the exact binary value half to even; Java's String.format would not."""
    rng = random.Random(5)
    values = [0.125, 0.375, 2.675, 1.005, 0.0, -0.0, -0.004, 1e-9, 123456.785, 0.5, 1.5, 2.5, 0.045, 3.14159]
    values += [rng.uniform(-100, 100) for _ in range(200)] + [k / 1000 for k in range(0, 2000, 5)]
    for digits in (0, 1, 2, 3):
        assert probe.call("format", values=values, digits=digits) == [format(v, f".{digits}f") for v in values]
    assert probe.call("format", values=values, digits=-1) == [format(v, ".0%") for v in values]


def test_percentiles_are_numpys(probe):
    rng = np.random.default_rng(1)
    for n in (1, 2, 3, 4, 7, 10, 31, 100):
        values = rng.exponential(5.0, n).tolist()
        for q in (10, 50, 90, 99):
            answer = probe.call("percentile", values=values, q=q)
            assert math.isclose(answer["q"], float(np.percentile(values, q)), rel_tol=1e-14)
        assert math.isclose(answer["median"], float(np.median(values)), rel_tol=1e-14)
        assert math.isclose(answer["p90"], float(np.percentile(values, 90)), rel_tol=1e-14)


@pytest.mark.parametrize(
    "logits,activation",
    [
        ([0.3], "sigmoid"),
        ([-40.0], "sigmoid"),
        ([1.0, 2.0, -1.0], "softmax"),
        ([1.0, 2.0, -1.0], "sigmoid"),
        ([5.0, 5.0], None),
        ([1000.0, -1000.0], "softmax"),
    ],
)
def test_probabilities_are_the_runners(probe, logits, activation):
    answer = probe.call("probabilities", logits=logits, activation=activation)
    expected = probabilities_from_logits(np.asarray(logits, np.float32), activation)
    np.testing.assert_allclose(answer["probabilities"], expected, rtol=1e-12, atol=1e-300)
    assert answer["argmax"] == int(np.argmax(expected))


# ---- the Benchmark button ----


def _script(texts, ids, nanos, read_counts, logits):
    return {"texts": texts, "ids": ids, "nanos": nanos, "read_counts": read_counts, "logits": logits}


def _request(model, baseline, *, texts, thresholds, repeats, warmup=1, jitter=(1.0,), labels=None):
    return dict(
        model=model,
        baseline=baseline,
        model_metadata=json.dumps(SKIM_META),
        baseline_metadata=json.dumps(LSTM_META),
        texts=texts,
        labels=labels,
        thresholds=thresholds,
        repeats=repeats,
        warmup=warmup,
        jitter=list(jitter),
        description="two test texts",
        platform="Linux-6.1-x86_64",
        processor="x86_64",
        cpu_count=2,
        runtime="Python 3.11.2",
        versions={"ai-edge-litert": "2.3.0", "numpy": "2.1.0"},
        command="keras-skim bench m --baseline b",
        peak_rss_mb=123.45,
    )


def test_bench_hand_computed(probe):
    """Two texts of 2 and 3 tokens, 2 repeats, no jitter: every number by hand."""
    texts = ["first", "second"]
    model = _script(texts, [[5, 6], [7, 8, 9]], [2000, 9000], [1, 1], [[2.0], [0.5]])
    base = _script(texts, [[5, 6], [7, 8, 9]], [6000, 18000], [2, 3], [[0.0], [0.0]])
    answer = probe.call("bench", **_request(model, base, texts=texts, thresholds=[0.5], repeats=2, labels=[1, 0]))
    (r,) = answer["report"]["results"]
    # per-token us: model 2000/2/1e3 = 1.0 and 9000/3/1e3 = 3.0 per repeat; baseline 3.0 and 6.0
    assert r["model_latency"] == {"median_us": 2.0, "p90_us": 3.0, "runs": 4}
    assert r["baseline_latency"] == {"median_us": 4.5, "p90_us": 6.0, "runs": 4}
    assert r["speedup"] == pytest.approx(24000 / 11000)  # (6000 + 18000) / (2000 + 9000), each repeat
    assert r["speedup_per_token_median"] == pytest.approx(4.5 / 2.0)
    assert r["tokens"] == 5 and r["skim_rate"] == pytest.approx(1 - 2 / 5)
    assert r["flop_r"] == pytest.approx(100 / (0.4 * 110 + 0.6 * 10))  # = 2.0
    assert r["speedup_over_flop_r"] == pytest.approx(24000 / 11000 / 2.0)
    assert r["accuracy"] == 0.5  # logits 2.0 and 0.5 both say class 1; labels 1, 0
    assert r["threshold"] == 0.5
    # warm-up (model, baseline) per text, then per repeat r and text k the model first iff r + k is even
    assert answer["calls"] == [
        ["model.tflite", 0],
        ["baseline.tflite", 0],
        ["model.tflite", 1],
        ["baseline.tflite", 1],
        ["model.tflite", 0],
        ["baseline.tflite", 0],
        ["baseline.tflite", 1],
        ["model.tflite", 1],
        ["baseline.tflite", 0],
        ["model.tflite", 0],
        ["model.tflite", 1],
        ["baseline.tflite", 1],
    ]
    assert answer["report"]["mean_tokens"] == 2.5 and answer["report"]["samples"] == 2


class _Clock:
    def __init__(self, jitter):
        self.now, self.jitter, self.calls = 0.0, jitter, []

    def advance(self, who, text, nanos):
        factor = self.jitter[len(self.calls) % len(self.jitter)]
        self.calls.append([who, text])
        self.now += round(nanos * factor) / 1e9


class _FakeRunner:
    """What bench_threshold needs of a SkimRunner, with scripted run times on a fake clock."""

    def __init__(self, name, metadata, script, clock):
        self.name, self.metadata, self.script, self.clock = name, metadata, script, clock

    def prepare(self, ids, threshold=None):
        return list(ids), threshold

    def invoke(self, ids, threshold):
        return self.run_ids(ids, threshold)

    def run_ids(self, ids, threshold=None):
        k = self.script["ids"].index(list(ids))
        self.clock.advance(self.name, k, self.script["nanos"][k])
        return {
            "logits": np.asarray([self.script["logits"][k]], np.float32),
            "read_count": np.asarray([self.script["read_counts"][k]], np.int32),
        }


@pytest.mark.parametrize("with_baseline,labels", [(True, [1, 0, 1, 1, 0]), (False, None)])
def test_bench_equals_keras_skim_bench(probe, monkeypatch, with_baseline, labels):
    """The same scripted models through Python's bench_threshold (on a fake clock) and the app's
    BenchRunner: the same order of runs and the same statistics."""
    rng = random.Random(11)
    texts = [f"text {k}" for k in range(5)]
    ids = [[rng.randint(2, 999) for _ in range(n)] for n in (7, 1, 12, 30, 4)]
    model = _script(
        texts,
        ids,
        [rng.randint(5_000, 90_000) for _ in ids],
        [rng.randint(0, len(i)) for i in ids],
        [[rng.uniform(-3, 3)] for _ in ids],
    )
    base = _script(texts, ids, [rng.randint(20_000, 200_000) for _ in ids], [len(i) for i in ids], [[0.0] for _ in ids])
    jitter = [1.0, 1.13, 0.91, 1.02, 1.37, 0.88, 1.0]
    thresholds, repeats = [0.3, 0.5], 4
    answer = probe.call(
        "bench",
        **_request(
            model,
            base if with_baseline else None,
            texts=texts,
            thresholds=thresholds,
            repeats=repeats,
            jitter=jitter,
            labels=labels,
        ),
    )

    clock = _Clock(jitter)
    monkeypatch.setattr(bench, "time", types.SimpleNamespace(perf_counter=lambda: clock.now))
    fake_model = _FakeRunner("model.tflite", SKIM_META, model, clock)
    fake_base = _FakeRunner("baseline.tflite", LSTM_META, base, clock) if with_baseline else None
    for threshold, java in zip(thresholds, answer["report"]["results"]):
        expected = bench.bench_threshold(
            fake_model,
            fake_base,
            [np.asarray(i) for i in ids],
            [np.asarray(i) for i in ids],
            labels,
            threshold,
            repeats,
        )
        # Python re-runs the model once per text afterwards for the read counts; the app reuses
        # the first timed round's outputs, so those untimed calls are not in the app's sequence.
        del clock.calls[-len(ids) :]
        _assert_same(java, expected)
    assert answer["calls"] == clock.calls


def _assert_same(java, python):
    assert sorted(java) == sorted(python)
    for key, value in python.items():
        if key == "text_median_seconds":
            for which in ("model", "baseline"):
                assert len(java[key][which]) == len(value[which]), key
                assert all(math.isclose(a, b, rel_tol=1e-9) for a, b in zip(java[key][which], value[which])), key
        elif isinstance(value, dict):
            assert java[key]["runs"] == value["runs"]
            assert math.isclose(java[key]["median_us"], value["median_us"], rel_tol=1e-9), key
            assert math.isclose(java[key]["p90_us"], value["p90_us"], rel_tol=1e-9), key
        elif isinstance(value, float):
            assert math.isclose(java[key], value, rel_tol=1e-9), key
        elif isinstance(value, list):
            assert len(java[key]) == len(value), key
            assert all(math.isclose(a, b, rel_tol=1e-9) for a, b in zip(java[key], value)), key
        else:
            assert java[key] == value, key


@pytest.mark.parametrize("with_baseline", [True, False])
def test_report_markdown_is_keras_skim_bench_layout(probe, with_baseline):
    """The app's report, fed to keras_skim.runtime.bench.markdown_report, gives the same text."""
    texts = ["a", "b", "c"]
    model = _script(texts, [[2, 3], [4], [5, 6, 7]], [12345, 6789, 23456], [1, 0, 2], [[0.2], [-1.0], [3.0]])
    base = _script(texts, [[2, 3], [4], [5, 6, 7]], [34567, 11111, 54321], [2, 1, 3], [[0.0], [0.0], [0.0]])
    answer = probe.call(
        "bench",
        **_request(
            model,
            base if with_baseline else None,
            texts=texts,
            thresholds=[0.0, 0.45, 1.5],
            repeats=3,
            labels=[1, 0, 1],
        ),
    )
    report = dict(answer["report"])
    machine = dict(report["machine"])
    machine["python"] = machine.pop("runtime").replace("Python ", "")
    report["machine"] = machine
    assert answer["markdown"] == bench.markdown_report(report)
    assert answer["markdown"].splitlines()[2] == ("- model: `model.tflite` (skim_lstm, d=100, d'=10, custom backend)")
