"""Measured numbers live only in benchmarks/results/ (issue 29, item 4): the
package's code, comments, docstrings and help text name the results file
and say the direction, never the figure, so that a rerun of a benchmark
cannot leave a stale copy of its numbers behind in the source."""

import os
import re

import pytest

PACKAGE = os.path.join(os.path.dirname(__file__), "..", "keras_skim")
SOURCE_SUFFIXES = (".py", ".cc", ".h", ".c", ".cpp")

NUMBER = r"\d+(?:[.,]\d+)?"
# Shapes a measured figure takes in prose: a speed ratio, a time per token,
# per call or per build, a percentage next to "faster"/"slower", an accuracy or
# reading level ("76.2% test at 87.9% read").
MEASURED_FIGURE = re.compile(
    "|".join(
        [
            rf"\b{NUMBER}x (?:faster|slower)",
            rf"(?:faster|slower) than [^\n]{{0,40}}\b{NUMBER}x\b",
            rf"\babout {NUMBER}x\b",
            rf"\b{NUMBER} ?(?:us|µs|ms|ns)\b(?! *[=(])",
            rf"\babout {NUMBER} ?(?:s|seconds|min|minutes)\b",
            rf"\b{NUMBER}(?:-{NUMBER})?%[^\n]{{0,30}}\b(?:faster|slower)\b",
            rf"\b(?:faster|slower)\b[^\n]{{0,30}}\b{NUMBER}(?:-{NUMBER})?%",
            rf"\b{NUMBER}% (?:test|read)\b",
        ]
    )
)

# Figures that look measured but are settings or a paper's own numbers:
# {(file relative to keras_skim/, the matched text): why it may stay}.
ALLOWED = {
    ("models/structural_jump/structural_jump_selection.py", "58.4% read"): "the doctest's made-up input",
    ("models/structural_jump/structural_jump_selection.py", "100% read"): "a full reader reads every word",
}


def _source_files():
    for folder, _, names in os.walk(PACKAGE):
        for name in sorted(names):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.join(folder, name)


def _measured_figures(text):
    return [match.group(0) for match in MEASURED_FIGURE.finditer(text)]


def test_no_measured_figure_in_the_package_source():
    found = []
    for path in _source_files():
        relative = os.path.relpath(path, PACKAGE).replace(os.sep, "/")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for figure in _measured_figures(text):
            if (relative, figure) not in ALLOWED:
                found.append(f"{relative}: {figure!r}")
    assert not found, "measured figures belong in benchmarks/results/ (name the file instead):\n" + "\n".join(found)


@pytest.mark.parametrize(
    "text",
    [
        "about 5.7x slower than custom",
        "it ran 2.7x slower than the custom op",
        "runs about 5 us per token",
        "0.01 us, against 30-60 us for a resize",
        "which was 2-8% faster than the C API route",
        "0.15 gave 76.2% test at 87.9% read",
        "faster than the LSTM export by 4.2x",
        "about 65 s in one process",
    ],
)
def test_the_check_catches_the_shapes_of_a_measured_figure(text):
    assert _measured_figures(text), text


@pytest.mark.parametrize(
    "text",
    [
        "parity as >= 99% of read decisions kept",
        "validation = 10% of train",
        "the custom op was faster (benchmarks/results/custom_op_speed.md)",
        "f'{custom / builtin:.1f}x'",
        "a 20,000 x 50 embedding",
    ],
)
def test_settings_and_references_pass(text):
    assert not _measured_figures(text), text
