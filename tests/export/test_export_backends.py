"""`keras-skim export --backend {builtin,custom}` and `keras-skim bench` on a
custom-op export (the KerasSkimLSTM op library built with the package)."""

import json
import os
import subprocess
import sys

import pytest

from tests.assertions import check_bench_result, one_line
from tests.export.helpers import run_cli, train_tiny


def _custom_export_refused(model_path, out):
    """`keras-skim export --backend custom` that must exit 2 and leave no
    OUT; returns its stderr."""
    code, _, stderr = run_cli(["export", model_path, "-o", str(out), "--backend", "custom"])
    assert code == 2
    assert not out.exists()
    return stderr


@pytest.fixture(scope="module")
def skim_model(tmp_path_factory):
    folder = tmp_path_factory.mktemp("skim_model")
    path, _ = train_tiny(str(folder), "skim_lstm")
    return path


@pytest.fixture(scope="module")
def custom_export(op_cache, skim_model, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("custom") / "export")
    code, stdout, stderr = run_cli(["export", skim_model, "-o", out, "--backend", "custom"])
    assert code == 0, stderr
    return out, stdout


def test_custom_backend_export_writes_the_same_files_and_metadata(custom_export):
    from keras_skim import contracts
    from keras_skim.runtime.tflite_check import op_inventory

    out, stdout = custom_export
    assert sorted(os.listdir(out)) == sorted([contracts.MARKER_FILE, "metadata.json", "model.tflite", "tokenizer.json"])
    assert "backend: custom" in stdout and "parity OK" in stdout
    meta = json.load(open(os.path.join(out, "metadata.json")))
    assert meta["format"] == "keras_skim.export"
    assert meta["backend"] == "custom" and meta["custom_ops"] == ["KerasSkimLSTM"]
    assert "LiteRT C API" in meta["runtime_note"] and "android_demo" in meta["runtime_note"]
    assert meta["parity"]["ok"] and meta["parity"]["mismatched_decisions"] == 0
    assert meta["model_kind"].startswith("skim") and meta["flops"]["skim_flops_per_token"]
    assert "CUSTOM:KerasSkimLSTM" in meta["tflite_ops"]
    ops = op_inventory(open(os.path.join(out, "model.tflite"), "rb").read())["main"]
    assert ops == ["CUSTOM:KerasSkimLSTM", "CAST", "FULLY_CONNECTED"]  # CAST: the int32 read_mask


def _notes_naming_the_builtin_backend(stdout):
    return [line for line in stdout.splitlines() if line.startswith("note:") and "--backend builtin" in line]


def test_default_export_is_the_custom_op_and_says_how_to_get_the_portable_graph(skim_model, op_cache, tmp_path):
    out = tmp_path / "export"
    code, stdout, stderr = run_cli(["export", skim_model, "-o", str(out), "--parity-samples", "1"])
    assert code == 0, stderr
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["backend"] == "custom" and meta["custom_ops"] == ["KerasSkimLSTM"] and meta["parity"]["ok"]
    (line,) = _notes_naming_the_builtin_backend(stdout)
    # what the builtin graph gives and what it costs, with the table the numbers come from
    assert "any LiteRT interpreter" in line and "slower than the custom op" in line
    assert "benchmarks/results/custom_op_speed.md" in line


def test_default_export_of_a_kind_without_an_op_is_builtin(tmp_path):
    path, _ = train_tiny(str(tmp_path / "lstm"), "lstm", fit=False)
    out = tmp_path / "export"
    code, stdout, stderr = run_cli(["export", path, "-o", str(out), "--parity-samples", "1"])
    assert code == 0, stderr
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["backend"] == "builtin" and meta["custom_ops"] == []
    assert _notes_naming_the_builtin_backend(stdout) == []


def test_default_export_without_the_op_library_is_builtin_and_says_why(skim_model, tmp_path, monkeypatch):
    from keras_skim.litert_ops import library_file

    monkeypatch.setattr(library_file, "_HERE", str(tmp_path))
    monkeypatch.setattr(library_file, "_VERIFIED", None)
    out = tmp_path / "export"
    code, stdout, stderr = run_cli(["export", skim_model, "-o", str(out), "--parity-samples", "1"])
    assert code == 0, stderr
    assert json.loads((out / "metadata.json").read_text())["backend"] == "builtin"
    notes = [line for line in stdout.splitlines() if "KerasSkimLSTM custom op is not available" in line]
    assert len(notes) == 1 and "custom-op library is not part of this install" in notes[0]
    assert "portable builtin graph" in notes[0] and "custom_op_speed.md" in notes[0]


def test_bench_runs_the_custom_export_against_a_builtin_lstm(custom_export, exported, tmp_path):
    out, _ = custom_export
    _, baseline, _ = exported("lstm")
    report_dir = tmp_path / "report"
    code, stdout, stderr = run_cli(
        ["bench", out, "--baseline", baseline, "--samples", "3", "--repeats", "2", "-o", str(report_dir)]
    )
    assert code == 0, stderr
    assert "custom backend" in stdout
    report = json.load(open(report_dir / "report.json"))
    assert report["backend"] == "custom" and report["baseline_backend"] == "builtin"
    check_bench_result(report, report["results"][0])


def test_runner_on_a_custom_export_imports_no_tensorflow(custom_export):
    out, _ = custom_export
    script = (
        "import sys\n"
        "from keras_skim.runtime.runner import SkimRunner\n"
        f"r = SkimRunner({out!r})\n"
        "p, mask, tokens = r.classify('the movie was good and fun')\n"
        "assert r.backend == 'custom' and len(mask) == len(tokens) == 6\n"
        "assert 'tensorflow' not in sys.modules and 'keras' not in sys.modules, 'TF imported'\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=dict(os.environ), timeout=60
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_no_op_library_gives_one_line_and_writes_nothing(skim_model, tmp_path, monkeypatch):
    """An install without the op library (no compiler when it was built, or
    not Linux): the custom export says so in one line; nothing compiles."""
    from keras_skim.litert_ops import library_file

    monkeypatch.setattr(library_file, "_HERE", str(tmp_path))
    monkeypatch.setattr(library_file, "_VERIFIED", None)
    monkeypatch.setenv("CXX", "no-such-cxx-compiler")
    line = one_line(_custom_export_refused(skim_model, tmp_path / "export"))
    assert "custom-op library is not part of this install" in line and "--backend builtin" in line


def test_unsupported_model_form_givesone_line(tmp_path, op_cache):
    path, _ = train_tiny(str(tmp_path / "gru"), "gru", fit=False)
    line = one_line(_custom_export_refused(path, tmp_path / "export"))
    assert "SkimLSTMCell | SkimGRUCell" in line and "--backend builtin" in line


def test_failed_custom_parity_refuses_and_writes_nothing(skim_model, op_cache, tmp_path, monkeypatch):
    """A real custom-op model with the wrong weights (another model's) fails
    the one parity checker: the export is refused and nothing is written."""
    import keras

    from keras_skim.export import custom_op_backend

    keras.utils.set_random_seed(99)
    _, other = train_tiny(str(tmp_path / "other"), "skim_lstm", fit=False)
    real = custom_op_backend.custom_op_flatbuffer
    # The other model's own plan, not the exported model's that the backend hands on.
    monkeypatch.setattr(
        custom_op_backend, "custom_op_flatbuffer", lambda model, **kwargs: real(other, **dict(kwargs, plan=None))
    )
    stderr = _custom_export_refused(skim_model, tmp_path / "export")
    assert "parity FAILED" in one_line(stderr) and "nothing written" in stderr


@pytest.mark.parametrize("system, machine", [("Darwin", "arm64"), ("Windows", "AMD64")])
def test_platforms_without_a_build_say_so_in_one_line(skim_model, tmp_path, monkeypatch, system, machine):
    """macOS and Windows (no op library is built there, README platform
    table): loading the op says so in one line naming the platform, and the
    default export takes the builtin graph with that line as its reason."""
    import platform

    from keras_skim import litert_ops
    from keras_skim.export.backend_choice import choose_backend
    from keras_skim.export.plan import plan_model
    from keras_skim.model_io import load_model

    monkeypatch.setattr(platform, "system", lambda: system)
    monkeypatch.setattr(platform, "machine", lambda: machine)
    monkeypatch.setattr(litert_ops.library_file, "_HERE", str(tmp_path))
    monkeypatch.setattr(litert_ops.library_file, "_VERIFIED", None)
    with pytest.raises(RuntimeError) as info:
        litert_ops.library_path()
    line = one_line(str(info.value))
    assert f"not built for {system} {machine}" in line and "--backend builtin" in line
    model = load_model(skim_model)
    backend, note = choose_backend(model, plan_model(model))
    assert backend == "builtin" and f"not built for {system} {machine}" in note and "\n" not in note


def _custom_and_builtin_times(table):
    """[(custom op, builtin graph) per-token times] of a committed speed
    table's JSON, one pair per measured row."""
    with open(table.removesuffix(".md") + ".json") as f:
        result = json.load(f)
    if "model" in result:  # a trained Structural-Jump model: one row per export
        times = {row["export"]: row["us_per_word"] for row in result["model"]["rows"]}
        return [(times["sj_custom"], times["sj_builtin"])]
    return [(row["us_per_token"]["op"], row["us_per_token"]["builtin_skim"]) for row in result["rows"]]


def test_every_kind_with_an_op_names_the_table_its_builtin_cost_was_measured_in():
    """The default export's note names, for every kind with a custom op, the
    committed table its builtin graph was timed in, and the direction it
    states (slower than the op) holds at every row of that table: the
    figures live only in benchmarks/results/."""
    from keras_skim.export.backend_choice import SPEED_TABLES, builtin_cost
    from keras_skim.model_kinds import KINDS

    root = os.path.join(os.path.dirname(__file__), "..", "..")
    for name, kind in KINDS.items():
        if kind.custom_op:
            table = SPEED_TABLES[name]
            assert table.startswith("benchmarks/results/") and os.path.isfile(os.path.join(root, table)), table
            assert builtin_cost(name) == f"slower than the custom op at every size measured ({table})"
            pairs = _custom_and_builtin_times(os.path.join(root, table))
            assert pairs and all(custom < builtin for custom, builtin in pairs), (table, pairs)
