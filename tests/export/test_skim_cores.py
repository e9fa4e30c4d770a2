"""The skim cells' cores on their own (keras_skim/litert_ops/kernels/skim_lstm_core.cc,
skim_gru_core.cc): every instruction set of this machine, aarch64 (NEON)
under qemu and a Clang build give the decisions of a float64 reference of
the cell (Keras' LSTM; Keras' GRU with reset_after=True) on the op's
weights, and the same decisions and states as each other
(tests/export/skim_<cell>_core_check.cc print one line per case)."""

import os

import pytest

from tests.export.core_check import skim_core_check

CHECKS = {cell: skim_core_check(cell) for cell in ("lstm", "gru")}


@pytest.fixture(scope="module", params=sorted(CHECKS))
def core(request, tmp_path_factory):
    """(check, its native build) of one cell's core."""
    check = CHECKS[request.param]
    return check, check.build(os.environ.get("CXX", "g++"), str(tmp_path_factory.mktemp("core") / "check"))


def test_every_instruction_set_matches_the_reference(core):
    check, native = core
    check.every_instruction_set(native)


def test_aarch64_neon_under_qemu_matches_x86(core, tmp_path):
    check, native = core
    check.aarch64_under_qemu(native, tmp_path)


def test_clang_build_decides_like_gcc(core, tmp_path):
    """Android builds the cores with Clang: same decisions and states."""
    check, native = core
    check.clang_build(native, tmp_path)
