"""Every code block of README.md runs as written (Python blocks in a fresh
namespace; the CLI walk-through on tiny local copies of its data sets).
The set-up commands (virtual environment, pip) are what CI itself runs."""

import os
import re
import shlex
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")


def _blocks(language):
    with open(README, encoding="utf-8") as f:
        text = f.read()
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


PYTHON_BLOCKS = _blocks("python")
SHELL_BLOCKS = [b for b in _blocks("bash") if "pip install" not in b]


def test_readme_has_the_blocks_this_test_runs():
    assert len(PYTHON_BLOCKS) >= 2 and len(SHELL_BLOCKS) >= 1


@pytest.mark.parametrize("index", range(len(PYTHON_BLOCKS)))
def test_python_block_runs(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exec(compile(PYTHON_BLOCKS[index], f"README.md python block {index}", "exec"), {"__name__": "__readme__"})


@pytest.mark.parametrize("index", range(len(SHELL_BLOCKS)))
def test_shell_block_runs(index, tmp_path):
    from tests.tiny_data import write_glove_wheel, write_rotten_tomatoes_wheel

    env = {k: v for k, v in os.environ.items() if not k.startswith("KERAS_SKIM_DATA_")}
    env.update(
        KERAS_SKIM_DATA_ROTTEN_TOMATOES=str(write_rotten_tomatoes_wheel(tmp_path)),
        KERAS_SKIM_DATA_GLOVE=str(write_glove_wheel(tmp_path)),
        KERAS_SKIM_CACHE=str(tmp_path / "cache"),
        PYTHONPATH=os.pathsep.join([ROOT] + [p for p in [os.environ.get("PYTHONPATH")] if p]),
    )
    _write_reviews_csv(tmp_path / "reviews.csv")
    for line in SHELL_BLOCKS[index].splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        argv = shlex.split(line)
        assert argv[0] == "keras-skim", line
        done = subprocess.run(
            [sys.executable, "-m", "keras_skim", *argv[1:]],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, f"{line}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"


def _write_reviews_csv(path):
    """The README's `reviews.csv`: three classes, learnable words, a quoted comma."""
    import csv
    import random

    rng = random.Random(0)
    words = {
        "praise": "great moving funny warm brilliant".split(),
        "complaint": "dull tedious boring flat awful".split(),
        "question": "why how when where what".split(),
    }
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["text", "label"])
        for i in range(90):
            label = list(words)[i % 3]
            writer.writerow([", ".join(rng.sample(words[label], 3)) + f" take {i}", label])


def test_ci_runs_exactly_the_readme_test_command():
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
        ci = [line for line in f.read().splitlines() if line and not line.startswith(("#", "set ", "cd "))]
    setup = [b for b in _blocks("bash") if "pip install" in b][0]
    commands = [line for line in setup.splitlines() if line and not line.startswith("#")]
    assert ci == [commands[1]]
