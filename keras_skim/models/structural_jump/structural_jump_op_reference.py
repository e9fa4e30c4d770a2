"""The `KerasSjLSTM` op in NumPy (float64), on the op's own inputs
(`structural_jump_op.quantized_op_inputs`; int8 ones dequantized): the
reference an int8 Structural-Jump-LSTM export is checked against. Its step
is Keras' LSTM update (`keras_skim.export.numpy_cell_steps.lstm_step`); the
walk over the words is the op's (sj_lstm_kernel.inc)."""

import numpy as np

from keras_skim.contracts import TOKEN_JUMPED, TOKEN_NOT_A_WORD, TOKEN_READ, TOKEN_SKIMMED
from keras_skim.export.numpy_cell_steps import lstm_step
from keras_skim.models.structural_jump.structural_jump_emitter import KIND_SENTENCE_END, KIND_SEPARATOR, KIND_WORD
from keras_skim.models.structural_jump.structural_jump_op import dequantized_op_inputs, quantized_op_inputs

NEXT_WORD, AFTER_SEPARATOR, AFTER_SENTENCE, END_OF_TEXT = range(4)  # the jump agent's actions


def jump_targets(ids, kinds):
    """(the first word's position, targets [T, 3]: per position the next
    word, the first word after the next separator or sentence end, and after
    the next sentence end; T: none) of the raw `ids`, whose kind is
    `kinds[id]`."""
    length = len(ids)
    targets = np.full((length, 3), length, np.int64)
    word = separator = sentence = length
    for t in range(length - 1, -1, -1):
        targets[t] = word, separator, sentence
        kind = kinds[ids[t]]
        if kind == KIND_WORD:
            word = t
        if kind in (KIND_SEPARATOR, KIND_SENTENCE_END):
            separator = word
        if kind == KIND_SENTENCE_END:
            sentence = word
    return word, targets


def _relu(z):
    return np.maximum(z, 0.0)


def op_reference(inputs, agent_units, head, ids):
    """NumPy (float64) run of one text through the op and the model's head.

    Args:
        inputs: the op's constant inputs (`quantized_op_inputs`).
        agent_units: a.
        head: the plan's ((hidden kernel, bias, activation), (logits kernel, bias, _)).
        ids: raw token ids [T] (or [1, T]).

    Returns:
        (logits [1, k], per-token codes [T], `contracts.TOKEN_*`).
    """
    ids = np.asarray(ids).reshape(-1)
    a = agent_units
    rows, kernel = dequantized_op_inputs(inputs, a)
    f64 = {name: np.asarray(inputs[name], np.float64) for name in ("previous", "skip_kernel", "skip_head")}
    jump_kernel = np.asarray(inputs["jump_kernel"], np.float64)
    jump_head = np.asarray(inputs["jump_head"], np.float64)
    m = kernel.shape[1] // 4
    folded = kernel.shape[0] == m
    speed_reading = bool(inputs["options"][0])
    kinds = inputs["kinds"]
    codes = np.where(kinds[ids] == KIND_WORD, TOKEN_JUMPED, TOKEN_NOT_A_WORD).astype(np.int32)
    t, targets = jump_targets(ids, kinds)
    h, c = np.zeros(m), np.zeros(m)
    previous = 1  # the first word follows a read and a NEXT_WORD
    while t < len(ids):
        row = rows[ids[t]]
        terms = f64["previous"][previous]
        if speed_reading:
            agent = _relu(row[:a] + terms[:a] + h @ f64["skip_kernel"])
            if not agent @ f64["skip_head"][:a] + f64["skip_head"][a] > 0:  # a tie skips, as in the cell
                codes[t], t, previous = TOKEN_SKIMMED, targets[t, 0], 0
                continue
        z_x = terms[a:] + (row[a:] if folded else row[a:] @ kernel[:-m])
        h, c = lstm_step(h, c, z_x, h @ kernel[-m:], m, None)
        action = NEXT_WORD
        if speed_reading:
            agent = _relu(h @ jump_kernel[:m] + jump_kernel[m])
            action = int(np.argmax(agent @ jump_head[:a] + jump_head[a]))  # the first maximum
        codes[t] = TOKEN_READ
        t = len(ids) if action == END_OF_TEXT else targets[t, action]
        previous = 1 + action
    (hidden_kernel, hidden_bias, hidden_activation), (logits_kernel, logits_bias, _) = head
    hidden = h @ hidden_kernel + hidden_bias
    hidden = _relu(hidden) if hidden_activation == "relu" else hidden
    return (hidden @ logits_kernel + logits_bias)[None], codes


def int8_reference(plan, settings):
    """The parity check's reference of an int8 `KerasSjLSTM` export of
    `plan` whose file records `settings` (folded, quantize): (ids [1, T],
    threshold, unused) -> (logits [1, k], per-token codes [T])."""
    inputs = quantized_op_inputs(plan.emitter, fold=settings["folded"], quantize=settings["quantize"])

    def reference(batch, threshold):
        return op_reference(inputs, plan.emitter.agent_units, plan.head, batch)

    return reference
