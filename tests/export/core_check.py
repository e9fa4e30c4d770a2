"""What the checks of the C++ cores (Skim-LSTM, Skim-GRU and Structural-Jump-LSTM) share: building a
core with its check program (tests/export/*_core_check.cc, one line per case), and the three runs
each core must pass: every instruction set of this machine, aarch64 (NEON) under qemu, and a
Clang build (the Android toolchain), each against the float64 reference and against the others.
`skim_core_check` is the check of a skim cell's core (tests/export/skim_core_check.h prints its lines)."""

import os
import shutil
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
# The kernels layer of the op library: the cores, free of LiteRT types.
OPS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "keras_skim", "litert_ops", "kernels")
INSTRUCTION_SETS = ("avx512", "avx2", "sse", "neon", "generic")


class CoreCheck:
    """One core and its check program.

    Args:
        check_source: the check program, in tests/export/.
        core_source: the core, in keras_skim/litert_ops/kernels/.
        parse: one output line -> (case name, case tuple whose first item is the instruction set used).
        case_count: how many cases the program prints.
        matches_reference: asserts a run's cases agree with the float64 reference.
        same: asserts two runs decide alike and give the same states.
    """

    def __init__(self, check_source, core_source, parse, case_count, matches_reference, same):
        self.sources = [
            os.path.join(HERE, check_source),
            os.path.join(OPS, core_source),
            os.path.join(OPS, "simd_isa.cc"),
        ]
        self.parse = parse
        self.case_count = case_count
        self.matches_reference = matches_reference
        self.same = same

    def build(self, compiler, out, *flags):
        if shutil.which(compiler) is None:
            pytest.skip(f"{compiler} not found")
        subprocess.run(
            [compiler, "-O1", "-std=c++17", "-Wall", "-Werror", f"-I{OPS}", *flags, *self.sources, "-o", out],
            check=True,
            capture_output=True,
            text=True,
        )
        return out

    def cases(self, command):
        out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        cases = dict(self.parse(line) for line in out.splitlines())
        assert len(cases) == self.case_count
        return cases

    def every_instruction_set(self, native):
        runs = {}
        for simd in INSTRUCTION_SETS:
            cases = self.cases([native, simd])
            if next(iter(cases.values()))[0] != simd:  # not supported here: the core fell back
                continue
            self.matches_reference(cases)
            runs[simd] = cases
        assert "generic" in runs and len(runs) >= 2
        for cases in runs.values():
            self.same(cases, runs["generic"])

    def aarch64_under_qemu(self, native, tmp_path):
        if shutil.which("qemu-aarch64") is None:
            pytest.skip("qemu-aarch64 not found (apt-get install qemu-user)")
        arm = self.build("aarch64-linux-gnu-g++", str(tmp_path / "check_arm"), "-static")
        on_arm = self.cases(["qemu-aarch64", arm])
        assert next(iter(on_arm.values()))[0] == "neon"
        self.matches_reference(on_arm)
        self.same(on_arm, self.cases([native]))

    def clang_build(self, native, tmp_path):
        on_clang = self.cases([self.build("clang++", str(tmp_path / "check_clang"))])
        self.matches_reference(on_clang)
        self.same(on_clang, self.cases([native]))


# ------------------------------------------------------------- skim cells' cores
SKIM_CASES = 39  # skim_core_check.h's run_cases
SKIM_TOKENS = 117  # real tokens of each case's text (120 minus 3 padding ids)


def _parse_skim(line):
    """(case, (simd, reads, reference reads, mismatches, max error, mask, h))."""
    f = line.split()
    assert f[0] == "case" and f[14] == "h", line[:120]
    return f[1], (f[3], int(f[5]), int(f[7]), int(f[9]), float(f[11]), f[13], [float(v) for v in f[15:]])


def _skim_matches_reference(cases):
    for name, (_, reads, reference_reads, mismatches, error, mask, _) in cases.items():
        assert mismatches == 0 and reads == reference_reads == mask.count("1"), name
        assert error < 2e-6, (name, error)
    # the thresholds do what they say: 0 reads every real token, 1.5 none
    assert all(c[1] == SKIM_TOKENS for n, c in cases.items() if n.endswith("thr0.00"))
    assert all(c[1] == 0 for n, c in cases.items() if n.endswith("thr1.50"))
    # cases with id 0 as a word (no mask_zero) are there, held to the same reference
    assert sum("_words0_" in n for n in cases) == 3


def _skim_same(a, b, atol=1e-6):
    assert a.keys() == b.keys()
    for name in a:
        assert a[name][5] == b[name][5], name  # identical read/skim decisions
        assert max(abs(x - y) for x, y in zip(a[name][6], b[name][6])) <= atol, name


def skim_core_check(cell):
    """The CoreCheck of a skim cell's core ("lstm", "gru"): tests/export/skim_<cell>_core_check.cc
    with keras_skim/litert_ops/kernels/skim_<cell>_core.cc."""
    return CoreCheck(
        f"skim_{cell}_core_check.cc",
        f"skim_{cell}_core.cc",
        _parse_skim,
        SKIM_CASES,
        _skim_matches_reference,
        _skim_same,
    )
