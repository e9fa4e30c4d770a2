"""Parity of a task export (`task_export`): every input at every threshold
through the Keras model and the export, decisions identical and outputs
close, as `parity.check_parity` holds a text classifier's export; a task's
signature has several inputs and several outputs, so both sides give dicts."""

import numpy as np

from keras_skim.export.parity import EXACT, ParityResult, _agreement_summary
from keras_skim.model_kinds import skim_gate


def _compared(expected, got, tolerance):
    """(max float difference, mismatched decisions, decisions) of one run:
    integer outputs (read masks, counts) must be equal, float ones close."""
    worst, bad, count = 0.0, 0, 0
    for name, want in expected.items():
        want, have = np.asarray(want), np.asarray(got[name])
        if want.dtype.kind in "iub":
            bad += int(np.sum(want.reshape(-1) != have.reshape(-1)))
            count += int(want.size)
        else:
            worst = max(worst, float(np.max(np.abs(want.astype(np.float64) - have.astype(np.float64)), initial=0.0)))
    return worst, bad, count


def check_task_parity(model, run_export, reference, samples, thresholds, tolerance=EXACT):
    """A `ParityResult` of the export against the Keras model.

    Args:
        model: the Keras model (its skim cells' thresholds are set to each
            threshold in turn, and restored).
        run_export: callable(inputs, threshold) -> {output name: array}.
        reference: callable(inputs) -> {output name: array}: the Keras
            model's outputs and read masks (int) under the same names.
        samples: [{input name: int32 array [1, T]}].
        thresholds: floats, or [None] for a model without a skim gate.
    """
    gate = skim_gate()
    cells = gate.gated_cells(model)
    worst, decisions, mismatched, problem = 0.0, 0, 0, None
    for threshold in thresholds:
        with gate.thresholds_set_to(cells, threshold):
            for inputs in samples:
                diff, bad, count = _compared(reference(inputs), run_export(inputs, threshold), tolerance)
                worst, decisions, mismatched = max(worst, diff), decisions + count, mismatched + bad
                if problem is None and ((bad and tolerance.decisions >= 1.0) or diff > tolerance.atol):
                    lengths = ", ".join(f"{name} {np.asarray(ids).shape[-1]}" for name, ids in inputs.items())
                    problem = (
                        f"threshold {threshold}, {lengths}: {bad} decisions differ, max output difference {diff:.2e}"
                    )
    ok = problem is None
    if ok:
        summary = _agreement_summary(tolerance, decisions, 1.0 - mismatched / max(decisions, 1), worst)
        message = f"parity OK (against Keras): {len(samples)} inputs x {len(thresholds)} thresholds, {summary}"
    else:
        message = f"parity FAILED against Keras ({problem})"
    return ParityResult(ok, len(samples), list(thresholds), worst, decisions, mismatched, message)
