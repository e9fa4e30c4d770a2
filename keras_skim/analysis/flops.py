"""Analytical FLOP counts and Flop-R, the speed-up measure of a skim cell.

A multiply-add counts as 2 FLOPs; element-wise operations (bias adds,
activations, gate products) count 1 each. Flop-R (Seo et al. 2018, section
4) is the FLOPs per token of the standard RNN of size d divided by the
expected FLOPs per token of the skim model at a measured skim rate, the
gate included.
"""

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


def flop_report(kind, units, small_units, input_dim, skim_rate):
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
    expected = (1.0 - skim_rate) * read + skim_rate * skim
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
