"""StructuralJumpLSTMCell against a NumPy reference of the paper's reading loop."""

import keras
import numpy as np
import pytest
import tensorflow as tf
from keras.src.testing import TestCase

from keras_skim import StructuralJumpLSTMCell
from keras_skim.models.structural_jump.structural_jump_lstm_cell import (
    END_OF_TEXT,
    NEXT_SENTENCE,
    NEXT_SEPARATOR,
    NEXT_WORD,
    STEP_EXTRA,
    TRACE_ACTIVE,
    TRACE_JUMP_ACTION,
    TRACE_JUMP_LOG_PROB,
    TRACE_JUMP_LOGITS,
    TRACE_READ,
    TRACE_SKIP_ACTION,
    TRACE_SKIP_LOG_PROB,
    TRACE_SKIP_LOGITS,
    TRACE_SKIP_VALUE,
    pack_step_inputs,
)
from keras_skim.models.structural_jump.text_structure import text_structure
from tests.numpy_reference import (
    lstm_step,
    structural_jump_pass,
    structural_jump_weights,
)

SEP, END, OTHER = [2], [3], [4]
D, M = 5, 8


def _documents(rs, batch=6, length=40):
    """Raw ids with sentences and sub-sentences, and their word streams."""
    ids = np.zeros((batch, length), "int32")
    for b in range(batch):
        tokens = []
        while len(tokens) < length:
            tokens += list(rs.randint(5, 30, rs.randint(1, 5))) + [rs.choice([2, 3, 3, 4])]
        ids[b, : length - 2 * b] = tokens[: length - 2 * b]
    words, offsets, _ = (np.asarray(t) for t in text_structure(ids, SEP, END, OTHER))
    return ids, words, offsets


def _traced(cell):
    """The cell's pass as one tf.function, as fit, predict and the export run it (the trace costs
    less CPU than one eager pass of this loop). Its weights are variables: one trace serves any bias."""
    return tf.function(keras.layers.RNN(cell, return_sequences=True, return_state=True))


def _run(cell, x, offsets, noise=None, traced=None):
    """(trace, h, c) of the cell's pass over the word streams (`traced`: `_traced(cell)` to reuse)."""
    trace, h, c, aux = (traced or _traced(cell))(pack_step_inputs(x, offsets, noise))
    return np.asarray(trace), np.asarray(h), np.asarray(c)


def _built_cell(rs, x, offsets, scale=0.7, **kwargs):
    cell = StructuralJumpLSTMCell(M, 6, **kwargs)
    keras.layers.RNN(cell).build((None, None, x.shape[-1] + STEP_EXTRA))  # built without a pass
    for v in cell.trainable_weights:
        v.assign(rs.normal(0, scale, v.shape).astype("float32"))
    return cell


def _check_against_reference(cell, x, offsets, noise=None, speed_reading=True, traced=None):
    trace, h, c = _run(cell, x, offsets, noise, traced)
    w = structural_jump_weights(cell)
    n = offsets[:, 0, 2]
    all_jumps = []
    for b in range(len(x)):
        visited, read, jumps, h_ref, c_ref = structural_jump_pass(
            x[b].astype(np.float64),
            offsets[b],
            n[b],
            w,
            None if noise is None else noise[b].astype(np.float64),
            speed_reading,
        )
        assert np.flatnonzero(trace[b, :, TRACE_ACTIVE]).tolist() == visited
        assert np.flatnonzero(trace[b, :, TRACE_READ]).tolist() == read
        assert trace[b, read, TRACE_JUMP_ACTION].astype(int).tolist() == jumps
        np.testing.assert_allclose(h[b], h_ref, atol=1e-5)
        np.testing.assert_allclose(c[b], c_ref, atol=1e-5)
        all_jumps += jumps
    return trace, all_jumps


def test_greedy_pass_matches_numpy_reference():
    rs = np.random.RandomState(0)
    _, words, offsets = _documents(rs)
    x = rs.normal(size=words.shape + (D,)).astype("float32") * (words > 0)[..., None]
    cell = _built_cell(rs, x, offsets)
    # Lean towards reading and short jumps so that long passes happen.
    cell.skip_policy.bias.assign([-0.5, 0.5])
    cell.jump_policy.bias.assign([1.5, 0.5, 0.0, -1.0])
    trace, jumps = _check_against_reference(cell, x, offsets)
    skipped = trace[..., TRACE_ACTIVE] - trace[..., TRACE_READ]
    assert skipped.sum() > 0 and trace[..., TRACE_READ].sum() > 0
    assert len(set(jumps)) >= 2


def test_sampled_pass_with_gumbel_noise_matches_numpy_reference():
    rs = np.random.RandomState(1)
    _, words, offsets = _documents(rs)
    x = rs.normal(size=words.shape + (D,)).astype("float32")
    cell = _built_cell(rs, x, offsets)
    cell.jump_policy.bias.assign([2.0, 0.0, 0.0, -0.5])
    noise = -np.log(-np.log(rs.uniform(1e-6, 1 - 1e-6, words.shape + (6,)))).astype("float32")
    trace, jumps = _check_against_reference(cell, x, offsets, noise)
    assert set(jumps) == {NEXT_WORD, NEXT_SEPARATOR, NEXT_SENTENCE, END_OF_TEXT}
    # The trace holds the log-probabilities of the actions taken.
    visited = trace[..., TRACE_ACTIVE] > 0
    read = trace[..., TRACE_READ] > 0
    log_p_skip = _log_softmax(trace[..., TRACE_SKIP_LOGITS])
    taken = trace[..., TRACE_SKIP_ACTION].astype(int)
    np.testing.assert_allclose(
        np.take_along_axis(log_p_skip, taken[..., None], -1)[..., 0][visited],
        trace[..., TRACE_SKIP_LOG_PROB][visited],
        atol=1e-5,
    )
    log_p_jump = _log_softmax(trace[..., TRACE_JUMP_LOGITS])
    jumped = trace[..., TRACE_JUMP_ACTION].astype(int)
    np.testing.assert_allclose(
        np.take_along_axis(log_p_jump, jumped[..., None], -1)[..., 0][read],
        trace[..., TRACE_JUMP_LOG_PROB][read],
        atol=1e-5,
    )


def _log_softmax(z):
    z = z - z.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


@pytest.fixture(scope="module")
def forced():
    """(ids, words, offsets, x, cell, traced): the cell the forced-action tests share, with its
    pass traced once; each test forces its actions through the agents' biases."""
    rs = np.random.RandomState(2)
    ids, words, offsets = _documents(rs)
    x = rs.normal(size=words.shape + (D,)).astype("float32")
    cell = _built_cell(rs, x, offsets, scale=0.1)
    return ids, words, offsets, x, cell, _traced(cell)


@pytest.mark.parametrize("jump", [NEXT_WORD, NEXT_SEPARATOR, NEXT_SENTENCE, END_OF_TEXT])
def test_each_jump_action_forced_through_the_bias(forced, jump):
    ids, _, offsets, x, cell, traced = forced
    cell.skip_policy.bias.assign([-50.0, 50.0])
    cell.jump_policy.bias.assign(np.eye(4)[jump] * 50.0)
    trace, jumps = _check_against_reference(cell, x, offsets, traced=traced)
    assert set(jumps) == {jump}
    for b in range(len(ids)):
        n = offsets[b, 0, 2]
        expected, i = [], 0
        while i < n:
            expected.append(i)
            i += [1, offsets[b, i, 0], offsets[b, i, 1], offsets[b, i, 2]][jump]
        assert np.flatnonzero(trace[b, :, TRACE_READ]).tolist() == expected
    if jump == END_OF_TEXT:
        assert trace[..., TRACE_READ].sum(axis=1).tolist() == [1] * len(ids)
    if jump == NEXT_WORD:
        assert trace[..., TRACE_READ].sum(axis=1).tolist() == offsets[:, 0, 2].tolist()


def test_forced_skip_keeps_h_and_c(forced):
    _, words, offsets, x, cell, traced = forced
    cell.skip_policy.bias.assign([50.0, -50.0])
    cell.jump_policy.bias.assign([0.0, 0.0, 0.0, 50.0])  # ignored after a skip
    trace, h, c = _run(cell, x, offsets, traced=traced)
    np.testing.assert_array_equal(trace[..., TRACE_ACTIVE], (words > 0).astype("float32"))
    assert trace[..., TRACE_READ].sum() == 0 and trace[..., TRACE_JUMP_ACTION].sum() == 0
    np.testing.assert_array_equal(h, 0.0)
    np.testing.assert_array_equal(c, 0.0)


def test_full_read_is_an_lstm_over_the_words_and_constant_action_one_hots():
    rs = np.random.RandomState(4)
    _, words, offsets = _documents(rs)
    x = rs.normal(size=words.shape + (D,)).astype("float32")
    cell = _built_cell(rs, x, offsets, speed_reading=False)
    cell.skip_policy.bias.assign([50.0, -50.0])  # would skip everything if it acted
    trace, h, c = _run(cell, x, offsets)
    w = structural_jump_weights(cell)
    for b in range(len(x)):
        n = offsets[b, 0, 2]
        hb, cb = np.zeros((1, M)), np.zeros((1, M))
        for i in range(n):
            xin = np.concatenate([x[b, i], [0, 1], [1, 0, 0, 0]])[None]
            hb, cb = lstm_step(xin, hb, cb, w["kernel"], w["recurrent"], w["bias"])
        np.testing.assert_allclose(h[b], hb[0], atol=1e-5)
        assert trace[b, :, TRACE_READ].sum() == n
    # The switch is a variable: flipping it changes the pass without rebuilding.
    cell.speed_reading = True
    assert _run(cell, x, offsets)[0][..., TRACE_READ].sum() == 0
    assert cell.get_config()["speed_reading"] is True


def test_values_are_emitted_at_visited_words():
    rs = np.random.RandomState(5)
    _, words, offsets = _documents(rs)
    x = rs.normal(size=words.shape + (D,)).astype("float32")
    cell = _built_cell(rs, x, offsets)
    trace, _, _ = _run(cell, x, offsets)
    w = structural_jump_weights(cell)
    # The first word's skip value from the initial state (h = 0, READ/NEXT).
    xin = np.concatenate([x[:, 0], np.tile([0, 1, 1, 0, 0, 0], (len(x), 1))], axis=1)
    s = np.maximum(np.concatenate([np.zeros((len(x), M)), xin], 1) @ w["skip_hidden_kernel"] + w["skip_hidden_bias"], 0)
    value = s @ w["skip_value_kernel"][:, 0] + w["skip_value_bias"][0]
    np.testing.assert_allclose(trace[:, 0, TRACE_SKIP_VALUE], value, atol=1e-5)


class StructuralJumpLSTMCellLayerTest(TestCase):
    def test_run_layer_test(self):
        rs = np.random.RandomState(6)
        _, words, offsets = _documents(rs, batch=3, length=12)
        steps = pack_step_inputs(rs.normal(size=words.shape + (D,)).astype("float32"), offsets)
        self.run_layer_test(
            keras.layers.RNN,
            init_kwargs={"cell": StructuralJumpLSTMCell(4, 3), "return_sequences": True},
            input_data=np.asarray(steps),
            expected_output_shape=(3, 12, 14),
            expected_num_trainable_weights=15,
            expected_num_non_trainable_weights=1,
        )


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"units": 0}, "units"),
        ({"units": 4.0}, "units"),
        ({"units": 4, "agent_units": 0}, "agent_units"),
        ({"units": 4, "speed_reading": 1}, "speed_reading"),
    ],
)
def test_bad_arguments_raise_one_line_errors(kwargs, message):
    with pytest.raises(ValueError, match=message) as info:
        StructuralJumpLSTMCell(**kwargs)
    assert "\n" not in str(info.value)


def test_unpacked_input_is_refused():
    with pytest.raises(ValueError, match="pack_step_inputs"):
        keras.layers.RNN(StructuralJumpLSTMCell(4))(np.zeros((1, 3, 9), "float32"))


def test_get_config_round_trip():
    cell = StructuralJumpLSTMCell(12, 7, speed_reading=False, unit_forget_bias=False, agent_initializer="he_normal")
    config = cell.get_config()
    clone = StructuralJumpLSTMCell.from_config(config)
    assert clone.get_config() == config
    for name in ("units", "agent_units", "speed_reading", "unit_forget_bias"):
        assert getattr(clone, name) == getattr(cell, name)
