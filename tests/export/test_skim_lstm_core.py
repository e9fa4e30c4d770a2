"""The Skim-LSTM core (keras_skim/litert_ops/skim_lstm_core.cc) on its own:
every instruction set of this machine, and aarch64 (NEON) under qemu, give
the float64 reference's decisions, and the same decisions and states as each
other (tests/export/skim_lstm_core_check.cc prints one line per case)."""

import os
import shutil
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
OPS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "keras_skim", "litert_ops")
SOURCES = [
    os.path.join(HERE, "skim_lstm_core_check.cc"),
    os.path.join(OPS, "skim_lstm_core.cc"),
    os.path.join(OPS, "simd_isa.cc"),
]


def _build(compiler, out, *flags):
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} not found")
    subprocess.run(
        [compiler, "-O1", "-std=c++17", "-Wall", "-Werror", f"-I{OPS}", *flags, *SOURCES, "-o", out],
        check=True,
        capture_output=True,
        text=True,
    )
    return out


def _cases(command):
    """{case: (simd, reads, reference reads, mismatches, max error, mask, h)} of one run."""
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    cases = {}
    for line in out.splitlines():
        f = line.split()
        assert f[0] == "case" and f[14] == "h", line[:120]
        cases[f[1]] = (f[3], int(f[5]), int(f[7]), int(f[9]), float(f[11]), f[13], [float(v) for v in f[15:]])
    assert len(cases) == 36
    return cases


@pytest.fixture(scope="module")
def native(tmp_path_factory):
    return _build(os.environ.get("CXX", "g++"), str(tmp_path_factory.mktemp("core") / "check"))


def _assert_matches_reference(cases):
    for name, (_, reads, reference_reads, mismatches, error, mask, _) in cases.items():
        assert mismatches == 0 and reads == reference_reads == mask.count("1"), name
        assert error < 2e-6, (name, error)
    # the thresholds do what they say: 0 reads every real token, 1.5 none
    assert all(c[1] == 117 for n, c in cases.items() if n.endswith("thr0.00"))
    assert all(c[1] == 0 for n, c in cases.items() if n.endswith("thr1.50"))


def _assert_same(a, b, atol=1e-6):
    assert a.keys() == b.keys()
    for name in a:
        assert a[name][5] == b[name][5], name  # identical read/skim decisions
        assert max(abs(x - y) for x, y in zip(a[name][6], b[name][6])) <= atol, name


def test_every_instruction_set_matches_the_reference(native):
    runs = {}
    for simd in ("avx512", "avx2", "sse", "neon", "generic"):
        cases = _cases([native, simd])
        used = next(iter(cases.values()))[0]
        if used != simd:  # not supported here: the core fell back
            continue
        _assert_matches_reference(cases)
        runs[simd] = cases
    assert "generic" in runs and len(runs) >= 2
    for cases in runs.values():
        _assert_same(cases, runs["generic"])


def test_aarch64_neon_under_qemu_matches_x86(native, tmp_path):
    if shutil.which("qemu-aarch64") is None:
        pytest.skip("qemu-aarch64 not found (apt-get install qemu-user)")
    arm = _build("aarch64-linux-gnu-g++", str(tmp_path / "check_arm"), "-static")
    on_arm = _cases(["qemu-aarch64", arm])
    assert next(iter(on_arm.values()))[0] == "neon"
    _assert_matches_reference(on_arm)
    _assert_same(on_arm, _cases([native]))


def test_clang_build_decides_like_gcc(native, tmp_path):
    """Android builds the core with Clang: same decisions and states."""
    clang = _build("clang++", str(tmp_path / "check_clang"))
    on_clang = _cases([clang])
    _assert_matches_reference(on_clang)
    _assert_same(on_clang, _cases([native]))
