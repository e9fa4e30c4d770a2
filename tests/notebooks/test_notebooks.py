"""The notebooks under notebooks/ run top to bottom, and are committed
without outputs.

Each one runs in a real IPython kernel (nbclient) started from the running
interpreter, in its small mode (`KERAS_SKIM_NOTEBOOK_SMALL=1`: tiny local
copies of the data sets, few steps), with the repository root first on the
kernel's import path. A few printed results are then checked, so that a
notebook that runs but shows nothing fails too."""

import json
import os
import pathlib
import re
import shutil
import sys
import time

import pytest

from tests.notebooks.strip_outputs import committed_text

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
EXPECTED = (
    "01_skim_lstm_training.ipynb",
    "02_export_and_litert.ipynb",
    "03_scornn_long_memory.ipynb",
    "04_structural_jump_lstm.ipynb",
)
# Seconds one cell may run before the test fails (pytest.ini's timeout caps a
# whole notebook). Small mode takes 10-40 s per notebook on a 2-core machine;
# the margin absorbs a loaded one.
CELL_TIMEOUT = 300


def _notebook_json(name):
    with open(NOTEBOOKS / name, encoding="utf-8") as f:
        return json.load(f)


def _source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def test_every_notebook_is_tested_and_listed_in_the_readme():
    found = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
    assert found == sorted(EXPECTED)
    readme = (NOTEBOOKS / "README.md").read_text(encoding="utf-8")
    for name in EXPECTED:
        assert name in readme


@pytest.mark.parametrize("name", EXPECTED)
def test_committed_without_outputs(name):
    notebook = _notebook_json(name)
    code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    assert code, name
    for cell in code:
        assert cell["outputs"] == [], f"{name}: a code cell has outputs: {_source(cell)[:80]!r}"
        assert cell["execution_count"] is None, f"{name}: a code cell has an execution count"
    assert notebook["metadata"]["kernelspec"]["name"] == "python3"
    # One cell reads the small-mode switch, tagged as papermill's parameters cell.
    parameters = [c for c in code if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(parameters) == 1 and "KERAS_SKIM_NOTEBOOK_SMALL" in _source(parameters[0])
    assert sum(cell["cell_type"] == "markdown" for cell in notebook["cells"]) >= 3
    # Nor execution timings or a kernel's language_info: only the cells change in a diff.
    assert committed_text(NOTEBOOKS / name) == (NOTEBOOKS / name).read_text(encoding="utf-8"), (
        f"{name}: run python tests/notebooks/strip_outputs.py"
    )


@pytest.fixture
def notebook_env(tmp_path, monkeypatch):
    """The kernel's environment: small mode, tiny data, a private cache and
    temporary folder, and this checkout's `keras_skim` and `benchmarks`."""
    from tests.tiny_data import write_glove_wheel, write_rotten_tomatoes_wheel

    for key in [k for k in os.environ if k.startswith("KERAS_SKIM_DATA_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("KERAS_SKIM_NOTEBOOK_SMALL", "1")
    monkeypatch.setenv("KERAS_SKIM_DATA_ROTTEN_TOMATOES", str(write_rotten_tomatoes_wheel(tmp_path)))
    monkeypatch.setenv("KERAS_SKIM_DATA_GLOVE", str(write_glove_wheel(tmp_path)))
    monkeypatch.setenv("KERAS_SKIM_CACHE", str(tmp_path / "cache"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    monkeypatch.setenv(
        "PYTHONPATH",
        os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]),
    )
    monkeypatch.setenv("KERAS_BACKEND", "tensorflow")
    monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", "2")
    return tmp_path


def execute(name, workdir):
    """Runs the notebook in a kernel of this interpreter; returns it with
    its outputs (and prints the seconds it took)."""
    nbclient = pytest.importorskip("nbclient", reason="pip install -e '.[test]' installs nbclient")
    nbformat = pytest.importorskip("nbformat")
    from ipykernel.kernelspec import write_kernel_spec
    from jupyter_client import AsyncKernelManager
    from jupyter_client.kernelspec import KernelSpecManager

    # An explicit kernel spec for sys.executable: a `python3` spec of the
    # user's or of another environment must not decide what runs.
    kernels = workdir / "kernels"
    write_kernel_spec(kernels / "keras-skim-notebook-test")
    manager = AsyncKernelManager(
        kernel_name="keras-skim-notebook-test",
        kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)]),
    )
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        km=manager,
        timeout=CELL_TIMEOUT,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    started = time.perf_counter()
    client.execute(cleanup_kc=True)  # shut the kernel down afterwards, as for its own
    seconds = time.perf_counter() - started
    # Kept next to the test's data for a look at a failure (pytest --basetemp).
    nbformat.write(notebook, workdir / name)
    # Stripping the executed notebook gives back the committed file.
    assert committed_text(workdir / name) == (NOTEBOOKS / name).read_text(encoding="utf-8")
    print(f"{name}: {seconds:.1f} s in small mode", file=sys.stderr)
    return notebook


def _text(notebook):
    """All the stream and plain-text outputs, in order."""
    parts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                parts.append(output["text"])
            elif "data" in output:
                parts.append(output["data"].get("text/markdown", "") + output["data"].get("text/html", ""))
                parts.append(output["data"].get("text/plain", ""))
    return "\n".join(parts)


def _images(notebook):
    return sum("image/png" in o.get("data", {}) for cell in notebook.cells for o in cell.get("outputs", []))


def test_01_skim_lstm_training(notebook_env):
    notebook = execute("01_skim_lstm_training.ipynb", notebook_env)
    text = _text(notebook)
    assert _images(notebook) == 2  # the training curves and the threshold sweep
    rows = re.findall(r"threshold (\d\.\d): accuracy ([\d.]+), skim rate ([\d.]+), Flop-R ([\d.]+)x", text)
    assert [float(t) for t, *_ in rows] == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    accuracies, skim_rates, flop_rs = ([float(row[i]) for row in rows] for i in (1, 2, 3))
    # Threshold 0 reads every token (Flop-R 0.995: the gate runs too), 1
    # skims every token (the small cell and the gate: 9.52x for d=100,
    # d'=10, 50-dim embeddings); Flop-R grows with the skim rate.
    assert (skim_rates[0], flop_rs[0]) == (0.0, 1.0)
    assert (skim_rates[-1], flop_rs[-1]) == (1.0, 9.52)
    assert [f for _, f in sorted(zip(skim_rates, flop_rs))] == sorted(flop_rs)
    assert all(0.0 <= a <= 1.0 for a in accuracies)
    assert "<b>" in text and "read " in text  # the read/skimmed words


def test_02_export_and_litert(notebook_env):
    notebook = execute("02_export_and_litert.ipynb", notebook_env)
    text = _text(notebook)
    assert "tensorflow imported: False" in text  # the runtime part ran without TensorFlow
    assert "skim-lstm builtin: builtin backend, custom ops []" in text
    assert "lstm builtin: builtin backend, custom ops []" in text
    exports = 2
    if shutil.which(os.environ.get("CXX", "g++")):
        assert "skim-lstm custom: custom backend, custom ops ['KerasSkimLSTM']" in text
        exports = 3
    assert text.count("parity OK") == exports
    # run_bench's report table, once per Skim-LSTM export against the LSTM
    assert text.count("| threshold | skim rate | us/token median |") == exports - 1


def test_03_scornn_long_memory(notebook_env):
    notebook = execute("03_scornn_long_memory.ipynb", notebook_env)
    text = _text(notebook)
    errors = [float(e) for e in re.findall(r"\|\|W\^T W - I\|\| = ([\d.e+-]+)", text)]
    assert len(errors) == 2 and max(errors) < 1e-4  # before and after training
    counts = [int(c) for c in re.findall(r"(\d+) parameters in the recurrent layer", text)]
    assert len(counts) == 2 and abs(counts[0] - counts[1]) / counts[0] < 0.02
    assert _images(notebook) >= 1


def test_04_structural_jump_lstm(notebook_env):
    notebook = execute("04_structural_jump_lstm.ipynb", notebook_env)
    text = _text(notebook)
    assert _images(notebook) == 1  # the speed-read curves
    (row,) = re.findall(
        r"test: accuracy ([\d.]+) \(full reading ([\d.]+)\), read ([\d.]+)%, skipped ([\d.]+)%, "
        r"jumped ([\d.]+)%, Flop-r ([\d.]+)x, mean reward ([\d.-]+)",
        text,
    )
    accuracy, full_read, read, skipped, jumped, flop_r, reward = (float(v) for v in row)
    assert 0.0 <= accuracy <= 1.0 and 0.0 <= full_read <= 1.0
    assert abs(read + skipped + jumped - 100.0) < 0.2
    assert flop_r > 0.0 and -0.1 <= reward <= 1.0
    assert "same counts from structural_jump_statistics: True" in text
    assert "separator jump lands on" in text  # the offsets of one text
    assert text.count("after each read word") == 5  # five texts marked word by word
