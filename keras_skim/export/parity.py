"""Checks that an exported TFLite model decides and outputs exactly what the
Keras model does (hard decisions, training=False)."""

import dataclasses

import numpy as np

from keras_skim.export.family_exporter import exporter_of
from keras_skim.model_kinds import skim_gate

ATOL = 1e-4
PARITY_MAX_TOKENS = 96  # the Keras reference runs the cell step by step


@dataclasses.dataclass(frozen=True)
class Tolerance:
    """What parity demands: the share of read decisions that must agree and
    the largest output difference. Exact (the default) demands every
    decision and outputs within `ATOL`."""

    decisions: float = 1.0
    atol: float = ATOL


EXACT = Tolerance()
# The builtin backend's int8 graph (the converter's dynamic-range
# quantization) against the float Keras model: the targets for
# int8 read decisions (>= 99% kept) and outputs near the float ones.
INT8_AGREEMENT = Tolerance(decisions=0.99, atol=0.05)


@dataclasses.dataclass
class ParityResult:
    ok: bool
    samples: int
    thresholds: list
    max_abs_diff: float
    decisions: int
    mismatched_decisions: int
    message: str

    def as_dict(self):
        return dataclasses.asdict(self)


def apply_activation(logits, activation):
    logits = np.asarray(logits, dtype=np.float64)
    if activation == "sigmoid":
        return 1.0 / (1.0 + np.exp(-logits))
    if activation == "softmax":
        e = np.exp(logits - logits.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return logits


def sample_sequences(vocabulary_size, count, seed=0, token_lists=None, padding_id=None, punctuation_ids=None):
    """Token-id sequences: given ones first, then random ones of several
    lengths. With a padding id, some random sequences hold it too (inside
    and at the end), so that parity covers padding. With punctuation ids (a
    jump model's), about a fifth of the random tokens are punctuation, so
    that the jumps land somewhere."""
    sequences = [np.asarray(t, np.int32)[:PARITY_MAX_TOKENS] for t in (token_lists or [])]
    sequences = [s for s in sequences if len(s)][:count]
    rng = np.random.default_rng(seed)
    lengths = [1, 7, 31, 64, 3, 50, 17, 96]
    k = 0
    while len(sequences) < count:
        n = lengths[k % len(lengths)]
        ids = rng.integers(1, max(vocabulary_size, 2), size=n).astype(np.int32)
        if punctuation_ids:
            marks = rng.random(n) < 0.2
            ids[marks] = rng.choice(np.asarray(punctuation_ids, np.int32), size=int(marks.sum()))
        if padding_id is not None and n > 2 and k % 2 == 1:
            ids[rng.choice(n - 1, size=max(1, n // 5), replace=False) + 1] = padding_id
            ids[-1] = padding_id
        sequences.append(ids)
        k += 1
    return sequences


def parity_thresholds(default_threshold):
    """The thresholds every parity check runs: the default, both ends (0
    reads all, 1 and above skim all) and values near saturation, where
    float32 p_read rounds to 1."""
    if default_threshold is None:
        return [None]
    values = [default_threshold, 0.0, 0.3, 0.7, 0.9999999, 1.0, 1.5]
    out = []
    for v in values:
        if float(v) not in out:
            out.append(float(v))
    return out


def record_decisions(cell, x, ids, padding_id, backward=False, read_decision=None):
    """The read decisions [T] of a skim `cell` stepped (training=False) over
    its inputs `x` [1, T, e] in one `tf.while_loop` (a backward direction
    from the last token to the first); padding (`padding_id` in `ids`) is
    skipped the way Keras' mask skips it: the state kept, the decision 0.
    The one recorder of every reference: a single layer's and each layer
    and direction of a stack. `read_decision` is the skim gate's
    (`skim_gate().read_decision`); the references pass it, asked before
    tracing, because AutoGraph must not convert the table's lookups."""
    import tensorflow as tf

    read_decision = read_decision or skim_gate().read_decision
    length = tf.shape(x)[1]
    init = list(cell.get_initial_state(batch_size=1))

    def body(k, decisions, *states):
        t = length - 1 - k if backward else k
        _, new_states = cell(x[:, t, :], list(states), training=False)
        read = read_decision(new_states)
        if padding_id is not None:
            pad = tf.equal(ids[0, t], padding_id)
            new_states = [tf.where(pad, old, new) for old, new in zip(states, new_states)]
            read = tf.where(pad, 0.0, read)
        return (k + 1, decisions.write(t, read), *new_states)

    out = tf.while_loop(
        lambda k, *_: k < length, body, (tf.constant(0), tf.TensorArray(tf.float32, size=length), *init)
    )
    return out[1].stack()


def keras_reference(model, plan):
    """A compiled function ids [1, T] -> (model output, read decisions [T]).

    The decisions are those of the model's own first skim cell, recorded by
    running that cell (training=False) over the embedded tokens in one graph
    call per input. Padding (`plan.padding_id`) is skipped the way Keras'
    mask skips it: the state is kept and the decision is 0. The threshold is
    the cells' variable, so `set_threshold` applies without retracing.
    """
    import tensorflow as tf

    family_reference = exporter_of(plan.model_kind).keras_reference(model, plan)
    if family_reference is not None:
        return family_reference
    if plan.stacked:
        return stack_reference(model, plan)
    gate = skim_gate()
    cells = gate.gated_cells(model)
    recorder = None
    padding_id = plan.padding_id
    if cells:
        cell = cells[0]
        embeddings = plan.embedding_layer.embeddings

        def recorder(ids):
            # Layers between the embedding and the RNN are inference identities
            # (checked by `plan_model`).
            return record_decisions(cell, tf.gather(embeddings, ids), ids, padding_id, read_decision=gate.read_decision)

    @tf.function(input_signature=[tf.TensorSpec([1, None], tf.int32)], reduce_retracing=True)
    def reference(ids):
        output = model(ids, training=False)
        if recorder is not None:
            decisions = recorder(ids)
        elif padding_id is not None:
            decisions = tf.cast(tf.not_equal(ids[0], padding_id), tf.float32)
        else:
            decisions = tf.ones(tf.shape(ids)[1:], tf.float32)
        return output, decisions

    return reference


def _direction_cells(planned):
    """The Keras cell of each direction of a planned recurrent layer."""
    layer = planned.layer
    if planned.bidirectional:
        return [layer.forward_layer.cell, layer.backward_layer.cell]
    return [layer.cell]


def stack_reference(model, plan):
    """A compiled function ids [1, T] -> (model output, {read mask output
    name: decisions [T]}) of a stacked or bidirectional model: every skim
    cell of every layer and direction is stepped (training=False) over the
    inputs that reach its layer in the model (a backward direction from the
    last token to the first), padding skipped as Keras' mask skips it (the
    state kept, the decision 0); a plain cell reads every real token."""
    import keras
    import tensorflow as tf

    gate = skim_gate()
    padding_id = plan.padding_id
    names = {(index, direction): name for index, direction, name in plan.read_mask_outputs()}
    features = [
        keras.Model(model.inputs, layer.layer.input[0] if isinstance(layer.layer.input, list) else layer.layer.input)
        for layer in plan.layers
    ]

    @tf.function(input_signature=[tf.TensorSpec([1, None], tf.int32)], reduce_retracing=True)
    def reference(ids):
        output = model(ids, training=False)
        if padding_id is not None:
            every = tf.cast(tf.not_equal(ids[0], padding_id), tf.float32)
        else:
            every = tf.ones(tf.shape(ids)[1:], tf.float32)
        decisions = {}
        for index, (layer, feature) in enumerate(zip(plan.layers, features)):
            x = None
            for direction, cell in zip(layer.directions, _direction_cells(layer)):
                if not gate.is_gated(cell):
                    decisions[names[(index, direction)]] = every
                    continue
                x = feature(ids, training=False) if x is None else x
                decisions[names[(index, direction)]] = record_decisions(
                    cell, x, ids, padding_id, backward=direction == "backward", read_decision=gate.read_decision
                )
        return output, decisions

    return reference


def _jump_counts_ok(got, mask, want):
    """read_count and visited_count agree with the mask and with Keras."""
    from keras_skim.contracts import OUTPUT_VISITED_COUNT, TOKEN_READ, TOKEN_SKIMMED

    read = int(np.asarray(got["read_count"]).reshape(-1)[0])
    visited = int(np.asarray(got[OUTPUT_VISITED_COUNT]).reshape(-1)[0])
    return read == int(np.sum(mask == TOKEN_READ)) == int(np.sum(want == TOKEN_READ)) and visited == int(
        np.sum(np.isin(mask, (TOKEN_READ, TOKEN_SKIMMED)))
    ) == int(np.sum(np.isin(want, (TOKEN_READ, TOKEN_SKIMMED))))


def _compared(ids, threshold, got, expected, wants, jumps, activation, tolerance):
    """(max output difference, mismatched decisions, decisions, the first
    problem or None) of one input's TFLite outputs `got` against the
    reference's `expected` outputs and `wants` read masks."""
    expected = np.asarray(expected, dtype=np.float64)
    # A stack's reference gives every read mask by its output name.
    wants = wants if isinstance(wants, dict) else {"read_mask": wants}
    wants = {name: np.rint(np.asarray(w)).astype(np.int32) for name, w in wants.items()}
    want = wants["read_mask"]
    outputs = apply_activation(got["logits"], activation)
    diff = float(np.max(np.abs(outputs - expected)))
    mask = np.asarray(got["read_mask"]).reshape(-1)
    bad = sum(int(np.sum(np.asarray(got[name]).reshape(-1) != w)) for name, w in wants.items())
    if jumps:
        count_ok = _jump_counts_ok(got, mask, want)
        same_class = int(np.argmax(outputs)) == int(np.argmax(expected))
    else:
        own_count = int(np.asarray(got["read_count"]).reshape(-1)[0])
        count_ok = own_count == int(mask.sum()) and (tolerance.decisions < 1.0 or own_count == int(want.sum()))
        same_class = True
    problem = None
    if (bad and tolerance.decisions >= 1.0) or diff > tolerance.atol or not count_ok or not same_class:
        what = "token codes (read/skipped/jumped)" if jumps else "read/skim decisions"
        problem = (
            ("" if jumps else f"threshold {threshold}, ")
            + f"{len(ids)} tokens: {bad} {what} differ, max output difference {diff:.2e}"
            + ("" if count_ok else (", read_count or visited_count wrong" if jumps else ", read_count wrong"))
            + ("" if same_class else ", another predicted class")
        )
    return diff, bad, len(ids) * len(wants), problem


def _agreement_summary(tolerance, decisions, agreement, worst):
    """The passing parity message's tail: the decisions compared and the worst output difference."""
    if tolerance == EXACT:
        what = f"{decisions} decisions identical"
    else:
        what = (
            f"{agreement:.2%} of {decisions} decisions agree (tolerance {tolerance.decisions:.0%}, {tolerance.atol:g})"
        )
    return f"{what}, max output difference {worst:.2e}"


def check_parity(model, plan, runner, sequences, thresholds, reference=None, against="Keras", tolerance=EXACT):
    """Runs every sequence at every threshold through Keras and the runner.

    Args:
        model: the Keras model.
        plan: its `ModelPlan`.
        runner: callable(token_ids [1, T] int32, threshold float) -> dict of
            TFLite outputs (`logits`, `read_mask`, `read_count`; a jump
            model's also `visited_count`).
        sequences: list of int32 arrays [T] (padding ids allowed: `plan.padding_id`).
        thresholds: list of floats (None: a plain model, threshold unused).
        reference: callable(ids [1, T], threshold) -> (outputs, decisions
            [T]) to compare with instead of the Keras model (an int8 export
            against its own dequantized weights); `against` names it.
        tolerance: a `Tolerance`; `EXACT` by default.

    A jump model (`plan.jumps`) is held to its per-token codes (read,
    skipped, jumped, not a word: the visited and read positions), its two
    counts, the predicted class, and its logits (before the softmax) within
    the tolerance.
    """
    gate = skim_gate()
    skims = plan.emitter.skims
    jumps = plan.jumps
    activation = "linear" if jumps else plan.output_activation
    cells = gate.gated_cells(model)
    saved = [cell.threshold for cell in cells]
    if reference is None:
        keras_run = keras_reference(model, plan)

        def reference(batch, threshold):
            return keras_run(batch)

    worst = 0.0
    decisions = mismatched = 0
    first_problem = None
    try:
        for threshold in thresholds:
            if skims:
                gate.set_threshold(model, threshold)
            for ids in sequences:
                batch = ids[None, :]
                expected, wants = reference(batch, threshold)
                got = runner(batch, 0.0 if threshold is None else threshold)
                diff, bad, count, problem = _compared(
                    ids, threshold, got, expected, wants, jumps, activation, tolerance
                )
                worst = max(worst, diff)
                decisions += count
                mismatched += bad
                if first_problem is None:
                    first_problem = problem
    finally:
        for cell, value in zip(cells, saved):
            cell.threshold = value
    agreement = 1.0 - mismatched / decisions if decisions else 1.0
    if first_problem is None and agreement < tolerance.decisions:
        first_problem = f"{agreement:.2%} of read/skim decisions agree, below {tolerance.decisions:.0%}"
    ok = first_problem is None
    if ok:
        message = f"parity OK (against {against}): {len(sequences)} inputs x {len(thresholds)} thresholds, " + (
            _agreement_summary(tolerance, decisions, agreement, worst)
        )
    else:
        message = f"parity FAILED against {against} ({first_problem})"
    return ParityResult(ok, len(sequences), thresholds, worst, decisions, mismatched, message)
