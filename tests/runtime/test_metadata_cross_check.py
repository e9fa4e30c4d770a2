"""The runtime cross-checks `metadata.json` against `model.tflite` before it
runs anything (issue 30, rows 9 and 14): the metadata of one export beside
another model, and a crafted model whose read mask is not one code per
token, are each one `RuntimeModelError` line, never a wrong report or an
IndexError."""

import os
import shutil
import struct

import pytest

from keras_skim.runtime.flatbuffer_reader import Flatbuffer
from tests.assertions import one_line


@pytest.fixture(scope="module")
def exports(exported, custom_exported):
    """{name: export folder}: Skim-LSTM and Structural-Jump-LSTM, builtin, and
    custom where a C++ compiler can build the op library."""
    folders = {"skim": exported("skim")[1], "sj": exported("sj")[1]}
    if shutil.which(os.environ.get("CXX", "g++")) is not None:
        folders["skim_custom"] = custom_exported("skim")
        folders["sj_custom"] = custom_exported("sj")
    return folders


def _mixed(exports, model, metadata, tmp_path):
    if model not in exports or metadata not in exports:
        pytest.skip("the custom-op library is not built here")
    folder = tmp_path / "mixed"
    shutil.copytree(exports[model], folder)
    shutil.copy(f"{exports[metadata]}/metadata.json", folder / "metadata.json")
    return folder


@pytest.mark.parametrize(
    "model, metadata, expect",
    [
        ("sj", "skim", "logits has shape [1, 2], expected [1, 1]"),
        ("skim", "sj", "the model takes a threshold"),
        ("skim", "skim_custom", "the model's custom ops are none"),
        ("skim_custom", "skim", "the model's custom ops are ['KerasSkimLSTM'], the metadata's none"),
        ("sj_custom", "skim_custom", "the model takes no threshold"),
        ("sj_custom", "sj", "the model's custom ops are ['KerasSjLSTM']"),
    ],
)
def test_metadata_of_another_export_is_refused_when_opened(exports, tmp_path, model, metadata, expect):
    from keras_skim.runtime import RuntimeModelError, SkimRunner

    folder = _mixed(exports, model, metadata, tmp_path)
    with pytest.raises(RuntimeModelError) as info:
        SkimRunner(folder)
    message = one_line(str(info.value))
    assert "metadata.json" in message and "does not describe this model" in message and expect in message, message


def test_the_matching_files_still_open(exports):
    from keras_skim.runtime import SkimRunner

    for folder in exports.values():
        SkimRunner(folder).classify("a good film , really .")


def _operator_inputs(data, operator):
    """(byte offset, tensor indices) of an operator's inputs in subgraph 0."""
    subgraph = Flatbuffer(data).root("model").tables(2, "subgraphs")[0]
    start, count = subgraph.tables(3, "operators")[operator]._vector(1, 4, "inputs")
    return start, struct.unpack_from(f"<{count}i", data, start)


def test_a_crafted_export_whose_read_mask_comes_from_a_scalar_is_one_line(exports, tmp_path):
    # The 4-byte edit: the op after the recurrence reads tensor 1 (the scalar threshold)
    # instead of the per-token codes; `read_mask` then came out a scalar and token_padding.cut
    # raised IndexError.
    from keras_skim.runtime import RuntimeModelError, SkimRunner

    if "skim_custom" not in exports:
        pytest.skip("the custom-op library is not built here")
    folder = tmp_path / "crafted"
    shutil.copytree(exports["skim_custom"], folder)
    data = bytearray((folder / "model.tflite").read_bytes())
    start, inputs = _operator_inputs(bytes(data), 1)
    assert len(inputs) == 1, inputs
    struct.pack_into("<i", data, start, 1)
    (folder / "model.tflite").write_bytes(bytes(data))
    with pytest.raises(RuntimeModelError) as info:
        SkimRunner(folder).classify("a good film")
    assert "read_mask of shape [], expected [1, 16]" in one_line(str(info.value))


def test_the_runner_as_a_library_prints_nothing_on_stderr(exports):
    # Issue 30: LiteRT's "INFO: Created TensorFlow Lite XNNPACK delegate for CPU." reached the
    # stderr of a program using SkimRunner (the CLI sends native lines to a log; a library cannot).
    import subprocess
    import sys

    code = (
        "import sys\nfrom keras_skim.runtime import SkimRunner\n"
        "for f in sys.argv[1:]:\n    SkimRunner(f).classify('a good film')\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.run(
        [sys.executable, "-c", code, *exports.values()],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, PYTHONPATH=root),
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
