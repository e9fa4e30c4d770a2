"""The code is formatted and linted by ruff with the repository's ruff.toml
(`ruff format --check`, `ruff check`): the check CI runs."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("command", [["check", "--output-format", "concise"], ["format", "--check"]])
def test_ruff(command):
    done = subprocess.run([sys.executable, "-m", "ruff", *command, "."], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, f"ruff {' '.join(command)} .:\n{done.stdout[-4000:]}{done.stderr[-2000:]}"


def test_the_configuration_is_the_repository_one():
    """A ruff.toml in the root, with a line length, so the checks above do not fall back to
    ruff's defaults."""
    with open(os.path.join(ROOT, "ruff.toml"), encoding="utf-8") as f:
        config = f.read()
    assert "line-length = 120" in config and "[lint]" in config
