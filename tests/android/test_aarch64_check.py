"""keras-skim's native runtime cross-compiled for aarch64 and run under
qemu-user with the aarch64 ai-edge-litert wheel's libLiteRt.so
(benchmarks/aarch64_check/aarch64_check.py): the same outputs as the x86-64
Python runtime for builtin and custom-op exports. Runs where
g++-aarch64-linux-gnu and qemu-user are installed."""

import importlib.util
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "benchmarks", "aarch64_check", "aarch64_check.py")


def _script():
    spec = importlib.util.spec_from_file_location("aarch64_check", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_aarch64_runtime_matches_python(exported, custom_exported, tmp_path):
    missing = _script().missing_tools()
    if missing:
        pytest.skip(f"missing {', '.join(missing)}: apt-get install g++-aarch64-linux-gnu qemu-user")
    exports = [exported("skim")[1], exported("lstm")[1], custom_exported("skim"), custom_exported("skip")]
    done = subprocess.run(
        [sys.executable, SCRIPT, *[a for e in exports for a in ("--export", e)], "--out", str(tmp_path / "report")],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=ROOT),
    )
    if "cannot download the aarch64" in done.stderr:
        pytest.skip("the aarch64 ai-edge-litert wheel could not be downloaded (pip and the network are needed once)")
    if "unshare:" in done.stderr:
        pytest.skip(f"unshare cannot make a private mount namespace here: {done.stderr.strip()[-300:]}")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.load(open(tmp_path / "report" / "results.json"))
    assert report["ok"] and len(report["rows"]) == 4
    for row in report["rows"]:
        assert row["ok"] and row["identical_masks"] == row["identical_counts"] == row["cases"] == 15, row
        assert row["max_logit_difference"] <= 1e-5
    assert {row["backend"] for row in report["rows"]} == {"builtin", "custom"}
