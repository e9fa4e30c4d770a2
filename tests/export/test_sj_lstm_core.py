"""The Structural-Jump-LSTM core (keras_skim/litert_ops/kernels/sj_lstm_core.cc) on
its own: every instruction set of this machine, aarch64 (NEON) under qemu
and a Clang build give the float64 reference's visited and read words (a
reference that walks the word stream by offsets, the other way round from
the core's raw-position jump targets) and the same states as each other
(tests/export/sj_lstm_core_check.cc prints one line per case)."""

import os

import pytest

from tests.export.core_check import CoreCheck


def _parse(line):
    """(case, (simd, (read, visited), (reference read, visited), mismatches, max error, jumps, mask, h))."""
    f = line.split()
    assert f[0] == "case" and f[20] == "h", line[:120]
    return f[1], (
        f[3],
        (int(f[5]), int(f[7])),
        (int(f[9]), int(f[11])),
        int(f[13]),
        float(f[15]),
        [int(v) for v in f[17].split(",")],
        f[19],
        [float(v) for v in f[21:]],
    )


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


CHECK = CoreCheck("sj_lstm_core_check.cc", "sj_lstm_core.cc", _parse, 21, _assert_matches_reference, _assert_same)


@pytest.fixture(scope="module")
def native(tmp_path_factory):
    return CHECK.build(os.environ.get("CXX", "g++"), str(tmp_path_factory.mktemp("sj_core") / "check"))


def test_every_instruction_set_matches_the_reference(native):
    CHECK.every_instruction_set(native)


def test_aarch64_neon_under_qemu_matches_x86(native, tmp_path):
    CHECK.aarch64_under_qemu(native, tmp_path)


def test_clang_build_decides_like_gcc(native, tmp_path):
    """Android builds the core with Clang: same visited and read words, same states."""
    CHECK.clang_build(native, tmp_path)
