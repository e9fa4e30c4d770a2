"""Every code block of README.md and of the docs pages that hold examples and
walkthroughs runs as written (Python blocks in a fresh namespace; the CLI
walk-throughs on tiny local copies of their data sets, through the CLI's
`main`, their benchmarks as `keras-skim` processes). The set-up commands
(virtual environment, pip) are what CI itself runs. Blocks marked `text` are
shown, not run (a preset name, printed output)."""

import os
import re
import shlex
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
# The pages whose examples and walkthroughs run here (the README's former sections).
PAGES = [
    "README.md",
    "docs/getting-started.md",
    "docs/models/skim-rnn.md",
    "docs/models/scornn.md",
    "docs/models/structural-jump.md",
    "docs/export-runtime.md",
    "docs/your-data.md",
]


def _blocks(language, pages=("README.md",)):
    """(page, index, code) of every ```LANGUAGE block of PAGES."""
    found = []
    for page in pages:
        with open(os.path.join(ROOT, page), encoding="utf-8") as f:
            text = f.read()
        codes = re.findall(rf"^ *```{language}\n(.*?)^ *```", text, flags=re.S | re.M)
        found += [(page, index, code) for index, code in enumerate(codes)]
    return found


PYTHON_BLOCKS = _blocks("python", PAGES)
SHELL_BLOCKS = [b for b in _blocks("bash", PAGES) if "pip install" not in b[2]]


def _ids(blocks):
    return [f"{page}:{index}" for page, index, _ in blocks]


def test_the_pages_have_the_blocks_this_test_runs():
    assert {page for page, _, _ in PYTHON_BLOCKS} >= {"README.md", "docs/models/skim-rnn.md"}
    assert len([b for b in PYTHON_BLOCKS if b[0] == "README.md"]) >= 2
    assert len(SHELL_BLOCKS) >= 3


@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=_ids(PYTHON_BLOCKS))
def test_python_block_runs(block, tmp_path, monkeypatch):
    page, index, code = block
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"{page} python block {index}", "exec"), {"__name__": "__readme__"})


def _commands(block):
    """The block's command lines (comments and blank lines dropped), each
    with its argv as a shell would split it."""
    for line in block.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            yield line, shlex.split(line)


@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=_ids(SHELL_BLOCKS))
def test_shell_block_runs(block, tmp_path, monkeypatch, capsys):
    """Every command of the block, in order, in one folder. The commands run
    through the CLI's own `main(argv)` in this process (the same parsing and
    code as the `keras-skim` entry point, without importing TensorFlow once
    per command); each `keras-skim bench` (TensorFlow-free) runs as a real
    `python -m keras_skim` process, so each walkthrough also goes through the
    entry point, reading files the in-process commands wrote."""
    from tests.tiny_data import write_glove_wheel, write_rotten_tomatoes_wheel

    for key in [k for k in os.environ if k.startswith("KERAS_SKIM_DATA_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("KERAS_SKIM_DATA_ROTTEN_TOMATOES", str(write_rotten_tomatoes_wheel(tmp_path)))
    monkeypatch.setenv("KERAS_SKIM_DATA_GLOVE", str(write_glove_wheel(tmp_path)))
    monkeypatch.setenv("KERAS_SKIM_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    _write_reviews_csv(tmp_path / "reviews.csv")
    commands = list(_commands(block[2]))
    if any(argv[1] == "train" for _, argv in commands):
        assert commands[-1][1][1] == "bench", "each walkthrough ends with a benchmark"
    for line, argv in commands:
        assert argv[0] == "keras-skim", line
        if argv[1] == "bench":
            code, out, err = _entry_point(argv[1:], tmp_path)
        else:
            code, out, err = _in_process(argv[1:], capsys)
        assert code == 0, f"{line}\n{out[-2000:]}\n{err[-2000:]}"


def _in_process(arguments, capsys):
    """(exit code, stdout, stderr) of `keras-skim ARGUMENTS` run by `main`,
    from a fresh Keras session as a new process would start."""
    import keras

    from keras_skim.cli.main import main

    keras.backend.clear_session()
    capsys.readouterr()
    code = main(arguments)
    out, err = capsys.readouterr()
    return code, out, err


def _entry_point(arguments, folder):
    """(exit code, stdout, stderr) of `python -m keras_skim ARGUMENTS` with
    this checkout first on the import path."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    done = subprocess.run(
        [sys.executable, "-m", "keras_skim", *arguments],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return done.returncode, done.stdout, done.stderr


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
    setup = [code for _, _, code in _blocks("bash") if "pip install" in code][0]
    commands = [line for line in setup.splitlines() if line and not line.startswith("#")]
    assert ci == [commands[1]]
    # docs/getting-started.md shows the same two commands
    docs_setup = [code for _, _, code in _blocks("bash", ["docs/getting-started.md"]) if "pip install" in code]
    assert docs_setup == [setup]
