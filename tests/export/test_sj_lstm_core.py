"""The Structural-Jump-LSTM core (keras_skim/litert_ops/sj_lstm_core.cc) on
its own: every instruction set of this machine, aarch64 (NEON) under qemu
and a Clang build give the float64 reference's visited and read words (a
reference that walks the word stream by offsets, the other way round from
the core's raw-position jump targets) and the same states as each other
(tests/export/sj_lstm_core_check.cc prints one line per case)."""

import os
import shutil
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
OPS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "keras_skim", "litert_ops")
SOURCES = [
    os.path.join(HERE, "sj_lstm_core_check.cc"),
    os.path.join(OPS, "sj_lstm_core.cc"),
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
    """{case: (simd, (read, visited), (reference read, visited), mismatches, max error, jumps, mask, h)}."""
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    cases = {}
    for line in out.splitlines():
        f = line.split()
        assert f[0] == "case" and f[20] == "h", line[:120]
        cases[f[1]] = (
            f[3],
            (int(f[5]), int(f[7])),
            (int(f[9]), int(f[11])),
            int(f[13]),
            float(f[15]),
            [int(v) for v in f[17].split(",")],
            f[19],
            [float(v) for v in f[21:]],
        )
    assert len(cases) == 21
    return cases


@pytest.fixture(scope="module")
def native(tmp_path_factory):
    return _build(os.environ.get("CXX", "g++"), str(tmp_path_factory.mktemp("sj_core") / "check"))


def _assert_matches_reference(cases):
    for name, (_, counts, reference, mismatches, error, _, mask, _) in cases.items():
        assert mismatches == 0 and counts == reference, name
        assert counts[0] == mask.count("1") and counts[1] == mask.count("1") + mask.count("0"), name
        assert error < 1e-6, (name, error)
    # every action happened somewhere, and the full-read cases read every word
    jumps = [sum(c[5][k] for n, c in cases.items() if "agents" in n) for k in range(4)]
    assert min(jumps) > 0, jumps
    assert sum(c[6].count("0") for c in cases.values()) > 0
    for name, case in cases.items():
        if "full_read" in name:
            assert "0" not in case[6] and "2" not in case[6] and case[1][0] > 300, name


def _assert_same(a, b, atol=1e-6):
    assert a.keys() == b.keys()
    for name in a:
        assert a[name][6] == b[name][6], name  # identical codes
        assert max(abs(x - y) for x, y in zip(a[name][7], b[name][7])) <= atol, name


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
    """Android builds the core with Clang: same visited and read words, same states."""
    clang = _build("clang++", str(tmp_path / "check_clang"))
    on_clang = _cases([clang])
    _assert_matches_reference(on_clang)
    _assert_same(on_clang, _cases([native]))
