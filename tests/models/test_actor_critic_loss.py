"""The returns, advantages and masked losses of Structural-Jump-LSTM on a
small example worked out by hand (numbers in the comments)."""

import math

import numpy as np
import pytest
import tensorflow as tf

from keras_skim.models.structural_jump.actor_critic_loss import episode_returns, structural_jump_losses
from keras_skim.models.structural_jump.structural_jump_lstm_cell import (
    TRACE_ACTIVE,
    TRACE_JUMP_LOG_PROB,
    TRACE_JUMP_LOGITS,
    TRACE_JUMP_VALUE,
    TRACE_READ,
    TRACE_SIZE,
    TRACE_SKIP_LOG_PROB,
    TRACE_SKIP_LOGITS,
    TRACE_SKIP_VALUE,
)

# Document A: 4 words; read, skipped, jumped over, read.  Document B: 2 words, both read.
ACTIVE = [[1, 1, 0, 1], [1, 1, 0, 0]]
READ = [[1, 0, 0, 1], [1, 1, 0, 0]]
WORDS = [4, 2]
LOGITS = [[2.0, 0.0], [0.0, math.log(3.0)]]  # A right (final 1); B wrong, p(true) = 0.25
LABELS = [0, 0]


def _trace():
    t = np.zeros((2, 4, TRACE_SIZE), "float32")
    t[..., TRACE_ACTIVE] = ACTIVE
    t[..., TRACE_READ] = READ
    t[..., TRACE_SKIP_VALUE] = [[0.5] * 4, [0.1] * 4]
    t[..., TRACE_JUMP_VALUE] = [[0.8] * 4, [0.0] * 4]
    t[..., TRACE_SKIP_LOG_PROB] = [[-0.1, -2.0, 0, -0.3], [-0.2, -0.4, 0, 0]]
    t[..., TRACE_JUMP_LOG_PROB] = [[-1.0, 0, 0, -0.5], [-0.7, -0.9, 0, 0]]
    return t  # agent logits 0: every sigmoid-CE term is log 2


def _losses(trace=None, **kwargs):
    parts = structural_jump_losses(
        _trace() if trace is None else trace, np.array(LOGITS, "float32"), np.array(LABELS), np.array(WORDS), **kwargs
    )
    return {k: float(v) for k, v in parts.items()}


def test_returns_by_hand():
    final = np.array([1.0, 0.25], "float32")
    skip, jump, costs = (
        np.asarray(v)
        for v in episode_returns(np.array(ACTIVE, "float32"), np.array(READ, "float32"), np.array(WORDS), final)
    )
    # costs: A -1/4, -0.5/4, 0, -1/4; B -1/2, -1/2
    np.testing.assert_allclose(costs, [[-0.25, -0.125, 0, -0.25], [-0.5, -0.5, 0, 0]])
    # R_skip = final + 0.1 * (costs from t on); R_jump leaves out step t's own cost.
    np.testing.assert_allclose(skip, [[0.9375, 0.9625, 0.975, 0.975], [0.15, 0.2, 0.25, 0.25]], atol=1e-6)
    np.testing.assert_allclose(jump, [[0.9625, 0.975, 0.975, 1.0], [0.2, 0.25, 0.25, 0.25]], atol=1e-6)


def test_losses_by_hand_paper_advantage():
    got = _losses()
    # CE: log(1 + e^-2) and -log 0.25, averaged.
    assert got["class_loss"] == pytest.approx((math.log1p(math.exp(-2)) + math.log(4)) / 2, abs=1e-6)
    # Skip agent over the 5 visited words, A_t = R_t - V_t:
    #   -(-0.1*.4375 - 2*.4625 - .3*.475 - .2*.05 - .4*.1) / 5 = 0.23225
    # Jump agent over the 4 read words: -(-1*.1625 - .5*.2 - .7*.2 - .9*.25) / 4 = 0.156875
    assert got["actor_loss"] == pytest.approx(0.23225 + 0.156875, abs=1e-6)
    # Critics: (.4375^2 + .4625^2 + .475^2 + .05^2 + .1^2) / 5 + (.1625^2 + .2^2 + .2^2 + .25^2) / 4
    assert got["critic_loss"] == pytest.approx(0.1286875 + 0.0422265625, abs=1e-6)
    assert got["entropy_loss"] == pytest.approx(2 * math.log(2), abs=1e-6)
    assert got["reward"] == pytest.approx((0.9375 + 0.15) / 2, abs=1e-6)
    assert got["accuracy"] == 0.5
    assert (got["words"], got["read"], got["visited"]) == (6, 4, 5)
    total = got["class_loss"] + 10 * got["actor_loss"] + got["critic_loss"] + 0.1 * 2 * math.log(2)
    assert got["loss"] == pytest.approx(total, abs=1e-5)


def test_code_advantage_uses_the_episode_return_at_every_step():
    got = _losses(advantage="code")
    # R_0: A 0.9375, B 0.15.  Skip: -(-2.4*.4375 - .6*.05) / 5; jump: -(-1.5*.1375 - 1.6*.15) / 4
    assert got["actor_loss"] == pytest.approx(0.216 + 0.1115625, abs=1e-6)
    assert got["critic_loss"] == pytest.approx(_losses()["critic_loss"], abs=1e-7)


def test_full_read_phase_drops_actor_and_critic():
    got = _losses(speed_reading=0.0, entropy_weight=0.3)
    assert got["loss"] == pytest.approx(got["class_loss"] + 0.3 * 2 * math.log(2), abs=1e-6)


@pytest.mark.parametrize("kind", ["sigmoid_ce", "kl"])
@pytest.mark.parametrize("speed", [0.0, 1.0])
def test_target_term_against_numpy(kind, speed):
    rs = np.random.RandomState(0)
    trace = _trace()
    trace[..., TRACE_SKIP_LOGITS] = rs.normal(size=(2, 4, 2))
    trace[..., TRACE_JUMP_LOGITS] = rs.normal(size=(2, 4, 4))
    skip_target = np.array([0.5, 0.5]) if speed else np.array([0.0, 1.0])
    jump_target = np.array([0.7, 0.1, 0.1, 0.1]) if speed else np.array([1.0, 0, 0, 0])

    def term(z, target, mask):
        if kind == "sigmoid_ce":
            p = 1 / (1 + np.exp(-z))
            per = -(target * np.log(p) + (1 - target) * np.log(1 - p)).mean(-1)
        else:
            q = np.exp(z) / np.exp(z).sum(-1, keepdims=True)
            per = np.where(target > 0, target * np.log(np.maximum(target, 1e-12) / q), 0).sum(-1)
        mask = np.array(mask, float)
        return (per * mask).sum() / mask.sum()

    want = term(trace[..., TRACE_SKIP_LOGITS], skip_target, ACTIVE) + term(
        trace[..., TRACE_JUMP_LOGITS], jump_target, READ
    )
    got = _losses(trace, speed_reading=speed, target_loss=kind, explore_jump_target=(0.7, 0.1, 0.1, 0.1))[
        "entropy_loss"
    ]
    assert got == pytest.approx(want, rel=1e-5)


def test_gradients_stop_at_returns_and_advantages():
    trace = tf.Variable(_trace())
    logits = tf.Variable(np.array(LOGITS, "float32"))
    with tf.GradientTape() as tape:
        loss = structural_jump_losses(trace, logits, np.array(LABELS), np.array(WORDS))["loss"]
    g_trace, g_logits = tape.gradient(loss, [trace, logits])
    g = np.asarray(g_trace)
    # A value gets only the critic's gradient 2 (V - R) / count, not the actor's.
    assert g[0, 0, TRACE_SKIP_VALUE] == pytest.approx(2 * (0.5 - 0.9375) / 5, abs=1e-6)
    assert g[1, 1, TRACE_JUMP_VALUE] == pytest.approx(2 * (0.0 - 0.25) / 4, abs=1e-6)
    # A log-probability gets -10 A_t / count; masked steps get nothing.
    assert g[0, 1, TRACE_SKIP_LOG_PROB] == pytest.approx(-10 * 0.4625 / 5, abs=1e-6)
    assert g[0, 1, TRACE_JUMP_LOG_PROB] == 0.0 and g[0, 2, TRACE_SKIP_LOG_PROB] == 0.0
    # The final reward carries no gradient into the logits: only the CE does.
    p = np.exp(LOGITS) / np.exp(LOGITS).sum(-1, keepdims=True)
    np.testing.assert_allclose(np.asarray(g_logits), (p - np.eye(2)[LABELS]) / 2, atol=1e-6)


def test_empty_documents_give_finite_losses():
    trace = np.zeros((2, 3, TRACE_SIZE), "float32")
    got = structural_jump_losses(trace, np.zeros((2, 2), "float32"), np.array([0, 1]), np.array([0, 0]))
    assert all(np.isfinite(float(v)) for v in got.values())
    assert float(got["actor_loss"]) == 0.0 and float(got["critic_loss"]) == 0.0


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="advantage"):
        _losses(advantage="mine")
    with pytest.raises(ValueError, match="target_loss"):
        _losses(target_loss="entropy")
