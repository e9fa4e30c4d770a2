"""`keras-skim bench` on a jump model: the fractions of the words read, skipped and jumped
from the per-token mask codes, and Flop-r from those counts, by hand and end to end."""

import json
import os

import numpy as np
import pytest

from keras_skim import contracts
from keras_skim.runtime import bench

R, S, J, P = (contracts.TOKEN_READ, contracts.TOKEN_SKIMMED, contracts.TOKEN_JUMPED, contracts.TOKEN_NOT_A_WORD)
SJ_META = {
    "format": "keras_skim.export",
    "model_kind": "structural_jump_lstm",
    "units": 16,
    "small_units": 0,
    "embedding_dim": 50,
    "agent_units": 4,
    "vocabulary_size": 100,
    "num_classes": 2,
    "output_activation": "softmax",
    "default_threshold": None,
    "backend": "builtin",
}


class _Scripted:
    """What bench_threshold needs of a SkimRunner: scripted masks, read counts and logits."""

    def __init__(self, metadata, runs):
        self.metadata, self.runs = metadata, runs

    def prepare(self, ids, threshold=None):
        return np.asarray(ids, np.int32).reshape(1, -1), np.float32(threshold or 0.0)

    def invoke(self, ids, threshold):
        mask, read_count, logits = self.runs[tuple(ids.reshape(-1).tolist())]
        return {
            "logits": np.asarray([logits], np.float32),
            "read_mask": np.asarray([mask], np.int32),
            "read_count": np.asarray([read_count], np.int32),
        }


def _lstm_flops(m, d_in):
    return 8 * m * (d_in + m) + 13 * m  # 4 gate blocks of 2 m (d_in + m) FLOPs, 13 element-wise per unit


def test_fractions_and_flop_r_of_a_jump_model_by_hand():
    runs = {
        (5, 2, 6, 7, 8, 9): ([R, P, J, J, S, R], 2, [0.1, 0.9]),  # 5 words: 2 read, 1 skipped, 2 jumped
        (10, 11, 2, 12): ([P, R, R, P], 2, [0.8, 0.2]),
    }  # 2 words, both read
    model = _Scripted(SJ_META, runs)
    ids = [np.asarray(k) for k in runs]
    result = bench.bench_threshold(model, None, ids, ids, [1, 1], 0.0, repeats=2)
    assert result["words"] == 7
    assert result["read_fraction"] == pytest.approx(4 / 7)
    assert result["skip_fraction"] == pytest.approx(1 / 7)
    assert result["jump_fraction"] == pytest.approx(2 / 7)
    assert result["accuracy"] == 0.5
    m, d, a = 16, 50, 4
    skip_agent = 2 * a * (m + d + 6) + 2 * a + 2 * 2 * a + 3  # hidden, ReLU, logits, argmax
    read_step = _lstm_flops(m, d + 6) + 2 * a * m + 2 * a + 2 * 4 * a + 7  # LSTM + jump agent
    full = 7 * _lstm_flops(m, d)
    assert result["flop_r"] == pytest.approx(full / (5 * skip_agent + 4 * read_step))  # 60592 / 41411
    assert result["flop_r"] == pytest.approx(60592 / 41411)
    # The threshold does not apply: the table shows words, not a sweep.
    report = {
        "model": "sj/model.tflite",
        "model_kind": "structural_jump_lstm",
        "units": 16,
        "small_units": 0,
        "backend": "builtin",
        "baseline": None,
        "data": "two texts",
        "samples": 2,
        "mean_tokens": 5.0,
        "threads": 1,
        "repeats": 2,
        "results": [result],
        "peak_rss_mb": 1.0,
        "machine": {"platform": "p", "processor": "x", "cpu_count": 2, "python": "3.11"},
        "versions": {},
        "command": "keras-skim bench",
    }
    lines = bench.markdown_report(report).splitlines()
    assert lines[2] == "- model: `sj/model.tflite` (structural_jump_lstm, d=16, builtin backend)"
    assert "| words | read | skip | jump |" in lines[-3]
    assert lines[-1].startswith("| 7 | 0.571 | 0.143 | 0.286 |") and "| 1.46 |" in lines[-1]


def test_a_text_without_words_reads_nothing_and_has_no_flop_r():
    runs = {(2, 3): ([P, P], 0, [0.0, 0.0])}
    result = bench.bench_threshold(
        _Scripted(SJ_META, runs), None, [np.asarray([2, 3])], [np.asarray([2, 3])], None, 0.0, repeats=1
    )
    assert (result["words"], result["read_fraction"], result["jump_fraction"]) == (0, 0.0, 0.0)
    assert result["flop_r"] is None


def test_skim_results_have_no_jump_fields():
    skim = dict(
        SJ_META,
        model_kind="skim_lstm",
        small_units=4,
        flops={"baseline_flops_per_token": 100, "read_flops_per_token": 110, "skim_flops_per_token": 10},
    )
    runs = {(5, 6): ([1, 0], 1, [0.3])}
    result = bench.bench_threshold(
        _Scripted(skim, runs), None, [np.asarray([5, 6])], [np.asarray([5, 6])], None, 0.5, repeats=1
    )
    assert not {"words", "read_fraction", "jump_fraction"} & set(result)
    assert result["flop_r"] == pytest.approx(100 / (0.5 * 110 + 0.5 * 10))


def test_bench_of_a_structural_jump_export(exported, tmp_path):
    """`keras-skim bench` on a real Structural-Jump-LSTM export: word fractions and Flop-r."""
    from keras_skim.runtime import SkimRunner
    from tests.assertions import one_line
    from tests.export.helpers import run_cli

    _, sj, _ = exported("sj")
    _, lstm, _ = exported("lstm")
    texts = [
        "a moving , funny and brilliant film . the cast is great",
        "a dull , tedious mess .",
        "the plot is boring and flat",
    ]
    data = tmp_path / "data.csv"
    data.write_text("text,label\n" + "".join(f'"{t}",{y}\n' for t, y in zip(texts, (1, 0, 0))))
    out = tmp_path / "report"
    code, printed, err = run_cli(
        [
            "bench",
            sj,
            "--baseline",
            lstm,
            "--data",
            str(data),
            "--split",
            "all",
            "--samples",
            "3",
            "--repeats",
            "2",
            "-o",
            str(out),
        ]
    )
    assert code == 0, err
    report = json.loads((out / "report.json").read_text())
    assert report["model_kind"] == "structural_jump_lstm" and len(report["results"]) == 1
    (result,) = report["results"]
    runner = SkimRunner(sj)
    counts = []
    for text in texts:
        ids, _ = runner.encode(text)
        outputs = runner.run_ids(ids)
        mask = np.rint(np.asarray(outputs["read_mask"], np.float64)).reshape(-1)
        read = int(np.asarray(outputs["read_count"]).reshape(-1)[0])
        assert read == int((mask == R).sum())
        if contracts.OUTPUT_VISITED_COUNT in outputs:
            assert int(np.asarray(outputs[contracts.OUTPUT_VISITED_COUNT]).reshape(-1)[0]) == int(
                ((mask == R) | (mask == S)).sum()
            )
        counts.append((int((mask != P).sum()), int(((mask == R) | (mask == S)).sum()), read))
    words, visited, read = (np.asarray(c) for c in zip(*counts))
    expected = bench.jump_summary(runner.metadata, words, visited, read)
    for key, value in expected.items():
        assert result[key] == pytest.approx(value), key
    assert result["words"] == sum(len(t.split()) for t in texts) - 4  # less 2 commas, 2 periods
    assert "| words | read | skip | jump |" in (out / "report.md").read_text()
    code, _, err = run_cli(["bench", sj, "--thresholds", "0.3"])
    assert code == 2 and "does not apply" in one_line(err)
    assert os.path.isdir(sj)
