"""Analytical FLOP counts and Flop-R, the speed-up measure of a skim cell.

A multiply-add counts as 2 FLOPs; element-wise operations (bias adds,
activations, gate products) count 1 each. Flop-R (Seo et al. 2018, section
4) is the FLOPs per token of the standard RNN of size d divided by the
expected FLOPs per token of the skim model at a measured skim rate, the
gate included.

`plan_flop_report` is the one FLOP report of a model: over its export plan
(`keras_skim.export.plan.ModelPlan`), every recurrent layer and direction
counted with its cell's `flop_kind` (the emitter's), so that training,
`evaluate`, the exporter's metadata and (through the metadata's counts)
`bench` give the same numbers. `flop_r_of` is the one Flop-R arithmetic.
"""

from __future__ import annotations

from keras_skim.model_kinds import step_shapes


def rnn_step_flops(kind, units, input_dim, state_dim=None):
    """FLOPs of one step of an LSTM or GRU of `units` units.

    `state_dim` is the size of the recurrent input (the full shared state for
    a skim cell's small cell); `units` by default. The kinds and their
    (matrix blocks, element-wise ops per unit) are the model-kind table's
    (`ModelKind.step_shape`).
    """
    shapes = step_shapes()
    if kind not in shapes:
        raise ValueError(f"kind must be one of {sorted(shapes)}; got {kind!r}")
    if units == 0:
        return 0
    blocks, elementwise = shapes[kind]
    state_dim = units if state_dim is None else state_dim
    return 2 * blocks * units * (input_dim + state_dim) + elementwise * units


def gate_flops(units, input_dim):
    """FLOPs of the read/skim gate: a 2-way projection of [x; h] and a softmax."""
    return 2 * 2 * (input_dim + units) + 2 + 6


def flop_report(kind: str, units: int, small_units: int, input_dim: int, skim_rate: float) -> dict[str, float]:
    """FLOPs per token of a skim cell and of the RNN it replaces.

    Args:
        kind: "lstm" or "gru".
        units: d, the big cell's size.
        small_units: d', the small cell's size (0 for skipping).
        input_dim: size of the input vector per token.
        skim_rate: fraction of tokens skimmed, in [0, 1].

    Returns:
        dict with `baseline_flops`, `read_flops`, `skim_flops`,
        `expected_flops` (per token at this skim rate) and `flop_r`.
    """
    if not 0.0 <= skim_rate <= 1.0:
        raise ValueError(f"skim_rate must be in [0, 1]; got {skim_rate}")
    baseline = rnn_step_flops(kind, units, input_dim)
    gate = gate_flops(units, input_dim)
    read = gate + baseline
    skim = gate + rnn_step_flops(kind, small_units, input_dim, state_dim=units)
    expected = expected_flops(read, skim, skim_rate)
    return {
        "kind": kind,
        "units": units,
        "small_units": small_units,
        "input_dim": input_dim,
        "skim_rate": skim_rate,
        "baseline_flops": baseline,
        "read_flops": read,
        "skim_flops": skim,
        "expected_flops": expected,
        "flop_r": baseline / expected,
    }


def expected_flops(read, skim, skim_rate):
    """Expected FLOPs per token of a direction that reads at `read` and
    skims at `skim` FLOPs, skimming a `skim_rate` share of its tokens."""
    return (1.0 - skim_rate) * read + skim_rate * skim


def flop_r_of(directions):
    """Flop-R over directions [(baseline, read, skim, skim_rate)] (FLOPs per
    token): the sum of the baselines over the sum of the expected FLOPs;
    None when nothing is counted."""
    full = expected = 0.0
    for baseline, read, skim, skim_rate in directions:
        full += baseline
        expected += expected_flops(read, skim, skim_rate)
    return full / expected if expected else None


def _plain_report(kind, units, input_dim):
    """A plain cell's report: no gate, every token read, Flop-R 1."""
    baseline = rnn_step_flops(kind, units, input_dim)
    return {
        "kind": kind,
        "units": units,
        "small_units": 0,
        "input_dim": input_dim,
        "skim_rate": 0.0,
        "baseline_flops": baseline,
        "read_flops": baseline,
        "skim_flops": baseline,
        "expected_flops": baseline,
        "flop_r": 1.0,
    }


def plan_flop_report(plan, skim_rates=()):
    """FLOPs per token of a planned model and its Flop-R at `skim_rates`.

    Args:
        plan: a `keras_skim.export.plan.ModelPlan` of a text classifier (or
            of a float-sequence model); its `flop_directions()` give each
            recurrent direction's emitter (whose `flop_kind` says which
            cell formula counts it) and input size.
        skim_rates: one rate in [0, 1] per skimming direction, in plan
            order (layer by layer, forward before backward), or one number
            for all of them; a plain cell reads every token.

    Returns:
        dict: `kind` (the plan's first cell's), `directions` (one
        `flop_report` dict per direction; a plain cell's has read = skim =
        expected = baseline), and over all of them `baseline_flops`,
        `read_flops`, `skim_flops`, `expected_flops` and `flop_r`.

    Raises:
        ValueError: not one rate per skimming direction.
    """
    directions = plan.flop_directions()
    skimming = sum(1 for emitter, _ in directions if emitter.skims)
    if isinstance(skim_rates, (int, float)):
        skim_rates = [skim_rates] * skimming
    rates = [float(rate) for rate in skim_rates]
    if len(rates) != skimming:
        raise ValueError(f"expected {skimming} skim rates (one per skimming direction); got {len(rates)}")
    rates = iter(rates)
    reports = [
        flop_report(e.flop_kind, e.units, e.small_units, dim, next(rates))
        if e.skims
        else _plain_report(e.flop_kind, e.units, dim)
        for e, dim in directions
    ]
    counts = [(r["baseline_flops"], r["read_flops"], r["skim_flops"], r["skim_rate"]) for r in reports]
    return {
        "kind": plan.emitter.flop_kind,
        "directions": reports,
        "baseline_flops": sum(r["baseline_flops"] for r in reports),
        "read_flops": sum(r["read_flops"] for r in reports),
        "skim_flops": sum(r["skim_flops"] for r in reports),
        "expected_flops": sum(r["expected_flops"] for r in reports),
        "flop_r": flop_r_of(counts),
    }
