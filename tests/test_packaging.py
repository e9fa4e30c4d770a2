"""The package a user installs: its metadata and requirement ranges, the
custom-op library checked before it is loaded, and the one line a
runtime-only install gives for a training command."""

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib

import pytest

import keras_skim
from keras_skim import litert_ops
from keras_skim.litert_ops import library_file, native_build

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _pyproject():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)


def _requirement(requirements, name):
    """(name, specifier) of the requirement for `name`."""
    for line in requirements:
        match = re.match(r"^([A-Za-z0-9_.\-]+)(\[[^\]]*\])?\s*(.*)$", line)
        if match.group(1).lower() == name:
            return match.group(3)
    raise AssertionError(f"no requirement for {name} in {requirements}")


def _allows(specifier, version):
    """Whether a `>=a,<b` specifier allows `version` (the only forms used)."""

    def parse(text):
        return tuple(int(p) for p in text.split("."))

    for clause in filter(None, (c.strip() for c in specifier.split(","))):
        op, bound = re.match(r"(>=|<|==)(.+)", clause).groups()
        bound, value = parse(bound), parse(version)[: len(parse(bound))]
        if (op == ">=" and value < bound) or (op == "<" and value >= bound) or (op == "==" and value != bound):
            return False
    return True


def test_metadata():
    project = _pyproject()["project"]
    assert project["name"] == "keras-skim" and project["license"] == "Apache-2.0"
    assert project["requires-python"] == ">=3.11,<3.14"
    versions = {c.rsplit(" ", 1)[1] for c in project["classifiers"] if re.match(r".*Python :: 3\.\d+$", c)}
    assert versions == {"3.11", "3.12", "3.13"}
    assert _pyproject()["tool"]["setuptools"]["dynamic"]["version"]["attr"] == "keras_skim.version.__version__"
    assert re.fullmatch(r"\d+\.\d+\.\d+", keras_skim.__version__)
    with open(os.path.join(ROOT, "LICENSE"), encoding="utf-8") as f:
        assert "Apache License" in f.read(400)
    with open(os.path.join(ROOT, "CITATION.cff"), encoding="utf-8") as f:
        citation = f.read()
    assert f"version: {keras_skim.__version__}" in citation
    for title in ("Neural Speed Reading via Skim-RNN", "Scaled Cayley Transform", "Structural-Jump-LSTM"):
        assert title in citation
    with open(os.path.join(ROOT, "CHANGELOG.md"), encoding="utf-8") as f:
        assert f"## {keras_skim.__version__}" in f.read()


def test_requirements_are_ranges_and_never_name_tensorflow_cpu():
    project = _pyproject()["project"]
    extras = project["optional-dependencies"]
    every = [*project["dependencies"], *(r for reqs in extras.values() for r in reqs)]
    assert not [r for r in every if "tensorflow-cpu" in r or "tensorflow_cpu" in r]
    assert not [r for r in every if "==" in r], "exact pins downgrade a user's newer patch release"
    # The base install is the runtime: no Keras, TensorFlow, pandas, matplotlib.
    base = {re.match(r"[A-Za-z0-9_.\-]+", r).group(0).lower() for r in project["dependencies"]}
    assert base == {"numpy", "ai-edge-litert", "flatbuffers"}
    tensorflow = _requirement(extras["tensorflow"], "tensorflow")
    keras = _requirement(extras["train"], "keras")
    # the two newest TensorFlow minors and the Keras they allow (TF 2.21 needs keras >= 3.12)
    assert _allows(tensorflow, "2.20.0") and _allows(tensorflow, "2.21.0") and not _allows(tensorflow, "2.19.1")
    assert all(_allows(keras, v) for v in ("3.12.0", "3.13.2", "3.14.1", "3.15.1", "3.15.9"))
    assert "tensorflow" not in {re.match(r"[A-Za-z0-9_.\-]+", r).group(0) for r in extras["train"]}


def test_lowest_constraints_are_the_low_ends_of_the_ranges():
    """.ci/lowest installs exactly the lower bound of each range."""
    project = _pyproject()["project"]
    extras = project["optional-dependencies"]
    requirements = [*project["dependencies"], *extras["train"], *extras["tensorflow"]]
    with open(os.path.join(ROOT, ".ci", "lowest-constraints.txt"), encoding="utf-8") as f:
        pins = dict(line.split("==") for line in f.read().split() if "==" in line)
    for name in ("numpy", "ai-edge-litert", "keras", "tensorflow"):
        low = re.search(r">=([\d.]+)", _requirement(requirements, name)).group(1)
        pinned = pins.get("tensorflow-cpu" if name == "tensorflow" else name)
        assert pinned is not None and pinned.split(".")[:2] == (low.split(".") + ["0"])[:2], (name, low, pinned)


def test_installed_environment_satisfies_the_requirements_without_a_second_tensorflow():
    """`pip install` of the runtime and `train` requirements into this
    environment (which has tensorflow or tensorflow-cpu) would install and
    change nothing: no second TensorFlow. Offline: the resolver only sees
    what is installed (.ci/run repeats it against the index)."""
    project = _pyproject()["project"]
    requirements = [*project["dependencies"], *project["optional-dependencies"]["train"]]
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--no-index", "--report", "-", "-q", *requirements],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert [item["metadata"]["name"] for item in report["install"]] == []


@pytest.fixture(scope="module")
def op_cache():
    """As tests/export/conftest.py's: the packaged library, or a skip without a compiler."""
    if native_build.compiler() is None and not native_build.is_current():
        pytest.skip("no C++ compiler: the custom-op library was not built")
    return litert_ops.library_path()


def _copy_build(tmp_path, with_sources):
    folder = tmp_path / "ops"
    folder.mkdir()
    here = os.path.dirname(litert_ops.library_path())
    for name in (native_build.LIBRARY_NAME, native_build.MANIFEST_NAME):
        shutil.copy(os.path.join(here, name), folder / name)
    if with_sources:
        for name in native_build.source_files(here):
            (folder / name).parent.mkdir(exist_ok=True)
            shutil.copy(os.path.join(here, name), folder / name)
    return folder


def test_library_is_checked_before_it_is_loaded(op_cache, tmp_path):
    folder = _copy_build(tmp_path, with_sources=True)
    library = folder / native_build.LIBRARY_NAME
    assert litert_ops.verify_library(str(folder)) == str(library)
    data = library.read_bytes()
    # truncated (an interrupted copy): the size, before any dlopen
    library.write_bytes(data[: len(data) // 2])
    with pytest.raises(RuntimeError, match=r"bytes, its build manifest says \d+; reinstall keras-skim$"):
        litert_ops.verify_library(str(folder))
    # same size, other bytes
    library.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    with pytest.raises(RuntimeError, match="its sha256 differs from its build manifest's"):
        litert_ops.verify_library(str(folder))
    library.write_bytes(data)
    # sources edited since the build (a checkout): stale
    with open(folder / native_build.C_INTERFACE, "a", encoding="utf-8") as f:
        f.write("// edited\n")
    with pytest.raises(RuntimeError, match="built from other C\\+\\+ sources than those next to it; rebuild it"):
        litert_ops.verify_library(str(folder))
    # no manifest: not built for this install, in one line
    os.remove(folder / native_build.MANIFEST_NAME)
    with pytest.raises(RuntimeError) as info:
        litert_ops.verify_library(str(folder))
    assert "custom-op library is not part of this install" in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("kept", [lambda n: n - 1, lambda n: n - 4096, lambda n: n // 2, lambda n: 100])
def test_a_truncated_library_whose_manifest_was_rewritten_to_match_is_refused_unloaded(op_cache, tmp_path, kept):
    # Issue 30, row 12: a truncated .so with a manifest rewritten to match passed every check and
    # dlopen faulted (SIGBUS, no message); the ELF headers now say it is cut. Loaded in a child
    # process, so a fault there cannot take the test run down.
    folder = _copy_build(tmp_path, with_sources=False)
    library = folder / native_build.LIBRARY_NAME
    data = library.read_bytes()
    library.write_bytes(data[: kept(len(data))])
    manifest_path = folder / native_build.MANIFEST_NAME
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest.update(bytes=library.stat().st_size, sha256=native_build.file_sha256(str(library)))
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    code = (
        "import sys\nfrom keras_skim.litert_ops import c_interface\n"
        "try:\n    c_interface.load_library()\nexcept RuntimeError as err:\n    print(err)\n    sys.exit(3)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(keras_skim.__file__)))
    env[library_file.OPS_DIR_ENV] = str(folder)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 3, (proc.returncode, proc.stdout, proc.stderr)
    assert "not a whole shared library" in proc.stdout and proc.stdout.count("\n") == 1, proc.stdout


def test_wheel_layout_without_sources_verifies(op_cache, tmp_path):
    """An installed wheel may carry no sources: then the hash check alone applies."""
    folder = _copy_build(tmp_path, with_sources=False)
    assert litert_ops.verify_library(str(folder)).endswith(native_build.LIBRARY_NAME)


def test_c_api_version_matches_the_header(op_cache):
    assert native_build.c_api_version() == litert_ops.C_API_VERSION
    with open(os.path.join(os.path.dirname(op_cache), native_build.MANIFEST_NAME), encoding="utf-8") as f:
        manifest = json.load(f)
    assert manifest["c_api_version"] == litert_ops.C_API_VERSION
    assert manifest["sha256"] == native_build.file_sha256(op_cache)


@pytest.mark.parametrize(
    "missing, extras",
    [(["keras", "tensorflow", "h5py"], "train,tensorflow"), (["keras"], "train")],
)
def test_training_command_in_a_runtime_only_install_is_one_line(missing, extras, tmp_path, monkeypatch, capsys):
    import importlib.util

    from keras_skim.cli.main import main

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in missing else real(name, *a))
    for command in (["train", "--data", "rotten_tomatoes", "-o", str(tmp_path / "m")], ["export", str(tmp_path)]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
        assert f'pip install "keras-skim[{extras}]"' in err and err.startswith(f"keras-skim {command[0]}: error: ")
    assert not (tmp_path / "m").exists()
