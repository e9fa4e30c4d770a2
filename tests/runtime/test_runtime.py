import json
import os
import subprocess
import sys

import numpy as np

from tests.assertions import check_bench_result

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_NO_TF_BENCH = r"""
import sys
sys.path.insert(0, {root!r})
from tests.export.helpers import _direct
from keras_skim.runtime import SkimRunner
probs, mask, tokens = SkimRunner({model!r}).classify("the movie was good and fun", threshold=0.5)
assert abs(sum(probs) - 1) < 1e-6 and len(mask) == len(tokens) == 6, (probs, mask, tokens)
code = _direct(["bench", {model!r}, "--baseline", {base!r}, "--data", {data!r}, "--split", "all", "--samples", "3",
                "--repeats", "2", "--thresholds", "0.3,0.6", "-o", {out!r}])
code2 = _direct(["bench", {model!r}, "--samples", "2", "--repeats", "1"])
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("tensorflow", "keras", "tf_keras"))
print("RESULT", code, code2, loaded)
"""


def test_classify_and_bench_without_tensorflow(exported, tmp_path):
    _, model_dir, _ = exported("skim")
    _, base_dir, _ = exported("lstm")
    data = tmp_path / "data.csv"
    data.write_text('text,label\n"the movie was good",1\n"awful boring plot",0\n"great story nice acting",1\n')
    out = tmp_path / "report"
    script = _NO_TF_BENCH.format(
        root=ROOT, model=model_dir, base=os.path.join(base_dir, "model.tflite"), data=str(data), out=str(out)
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = [line for line in proc.stdout.splitlines() if line.startswith("RESULT")][0]
    assert result == "RESULT 0 0 []", result
    assert sorted(os.listdir(out)) == sorted(
        [".keras-skim-output.json", "report.json", "report.md", "threshold_sweep.png"]
    )
    report = json.load(open(out / "report.json"))
    assert report["baseline_kind"] == "lstm" and len(report["results"]) == 2
    first = report["results"][0]
    for key in ("skim_rate", "flop_r", "speedup", "speedup_over_flop_r", "accuracy"):
        assert key in first
    texts = ["the movie was good", "awful boring plot", "great story nice acting"]
    for result in report["results"]:
        check_bench_result(report, result, texts=texts)
    assert "| threshold |" in (out / "report.md").read_text()


def test_bench_bad_inputs(exported, tmp_path):
    from tests.assertions import one_line
    from tests.export.helpers import run_cli

    _, model_dir, _ = exported("skim")
    for argv, expect in (
        (["bench", str(tmp_path / "none.tflite")], "no such file"),
        (["bench", model_dir, "--data", str(tmp_path / "none.txt")], "no such file"),
        (["bench", model_dir, "--thresholds", "a,b"], "--thresholds"),
    ):
        code, _, err = run_cli(argv)
        assert code == 2 and expect in one_line(err), err
    lines = tmp_path / "texts.txt"
    lines.write_text("good fun movie\nbad plot\n")
    out = tmp_path / "rep"
    out.mkdir()
    code, _, err = run_cli(["bench", model_dir, "--data", str(lines), "--repeats", "1", "-o", str(out)])
    assert code == 2 and "--force" in err and os.listdir(out) == []


def test_runtime_module_imports_no_tensorflow():
    code = (
        "import sys, keras_skim.runtime, keras_skim.cli.bench_command; "
        "print([m for m in sys.modules if m.startswith(('tensorflow', 'keras.'))])"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.stdout.strip() == "[]", proc.stdout + proc.stderr


def test_runner_probabilities(exported):
    from keras_skim.runtime import SkimRunner

    _, model_dir, _ = exported("skim")
    runner = SkimRunner(model_dir)
    probs, mask, tokens = runner.classify("great acting and a nice story", threshold=0.0)
    assert tokens == ["great", "acting", "and", "a", "nice", "story"]
    assert mask.tolist() == [1] * 6 and np.isclose(probs.sum(), 1.0)


def test_runner_refuses_inputs_it_cannot_take(exported):
    import pytest

    from keras_skim.runtime import RuntimeModelError, SkimRunner

    _, model_dir, _ = exported("skim")
    runner = SkimRunner(model_dir)
    vocabulary = runner.vocabulary_size
    for ids, threshold, message in (
        ([[3, 4], [5, 6]], 0.5, "one text"),  # a batch of two texts
        ([3, vocabulary], 0.5, f"token id {vocabulary} is outside"),
        ([3, -1], 0.5, "token id -1 is outside"),
        ([3, 4], float("nan"), "threshold"),
        ([3, 4], -0.1, "threshold"),
        ([0.5, 2.0], 0.5, "integers"),
    ):
        with pytest.raises(RuntimeModelError, match=message) as info:
            runner.run_ids(np.asarray(ids), threshold)
        assert "\n" not in str(info.value)
    # The largest id and an empty text (read as one unknown token) are fine.
    assert runner.run_ids([vocabulary - 1], 0.5)["read_mask"].shape == (1, 1)
    assert runner.run_ids([], 0.5)["read_mask"].shape == (1, 1)
