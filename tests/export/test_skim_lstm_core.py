"""The Skim-LSTM core (keras_skim/litert_ops/skim_lstm_core.cc) on its own:
every instruction set of this machine, and aarch64 (NEON) under qemu, give
the float64 reference's decisions, and the same decisions and states as each
other (tests/export/skim_lstm_core_check.cc prints one line per case)."""

import os

import pytest

from tests.export.core_check import CoreCheck


def _parse(line):
    """(case, (simd, reads, reference reads, mismatches, max error, mask, h))."""
    f = line.split()
    assert f[0] == "case" and f[14] == "h", line[:120]
    return f[1], (f[3], int(f[5]), int(f[7]), int(f[9]), float(f[11]), f[13], [float(v) for v in f[15:]])


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


CHECK = CoreCheck("skim_lstm_core_check.cc", "skim_lstm_core.cc", _parse, 36, _assert_matches_reference, _assert_same)


@pytest.fixture(scope="module")
def native(tmp_path_factory):
    return CHECK.build(os.environ.get("CXX", "g++"), str(tmp_path_factory.mktemp("core") / "check"))


def test_every_instruction_set_matches_the_reference(native):
    CHECK.every_instruction_set(native)


def test_aarch64_neon_under_qemu_matches_x86(native, tmp_path):
    CHECK.aarch64_under_qemu(native, tmp_path)


def test_clang_build_decides_like_gcc(native, tmp_path):
    """Android builds the core with Clang: same decisions and states."""
    CHECK.clang_build(native, tmp_path)
