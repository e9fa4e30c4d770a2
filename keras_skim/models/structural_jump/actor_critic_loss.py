"""The episodic actor-critic loss of Structural-Jump-LSTM (Hansen et al.,
ICLR 2019, section 3.1, eq. 5-9), computed after the RNN from the cell's
per-step trace, the prediction and the label.

Everything is a function of tensors so that it can be checked against a
hand-computed example; `StructuralJumpLSTM.compute_loss` calls it.
"""

import dataclasses

from keras import ops

from keras_skim.models.structural_jump.structural_jump_lstm_cell import (
    TRACE_ACTIVE,
    TRACE_JUMP_LOG_PROB,
    TRACE_JUMP_LOGITS,
    TRACE_JUMP_VALUE,
    TRACE_READ,
    TRACE_SKIP_LOG_PROB,
    TRACE_SKIP_LOGITS,
    TRACE_SKIP_VALUE,
)

ADVANTAGES = ("paper", "code")
TARGET_LOSSES = ("sigmoid_ce", "kl")
# Full-read pretraining pulls the agents towards "always read, never jump".
FULL_READ_SKIP_TARGET = (0.0, 1.0)
FULL_READ_JUMP_TARGET = (1.0, 0.0, 0.0, 0.0)


def final_rewards(logits, labels):
    """1 where the prediction is right, else p(true class) (eq. 8, [C] max)."""
    labels = ops.cast(labels, "int32")
    probabilities = ops.softmax(logits, axis=-1)
    p_true = ops.take_along_axis(probabilities, labels[:, None], axis=-1)[:, 0]
    correct = ops.cast(ops.equal(ops.cast(ops.argmax(logits, axis=-1), "int32"), labels), p_true.dtype)
    return ops.maximum(correct, p_true), correct


def step_costs(active, read, word_count, skip_cost=0.5):
    """r_t: -1/n at a read word, -skip_cost/n at a skipped one, 0 elsewhere."""
    n = ops.maximum(ops.cast(word_count, active.dtype), 1.0)[:, None]
    return -active * (read + skip_cost * (1.0 - read)) / n


def episode_returns(active, read, word_count, final, skip_cost=0.5, rolling_weight=0.1):
    """Returns of both agents at every step (eq. 9, discount 1).

    The skip agent's return at step t includes step t's own cost; the jump
    agent acts after the word was paid for, so its return starts at t + 1
    (the authors' `rolling_reward`).

    Args:
        active, read: float `(batch, T)` masks from the trace.
        word_count: `(batch,)` words per document (n).
        final: `(batch,)` final rewards.
        skip_cost: cost of a skipped word relative to a read one.
        rolling_weight: w, the weight of the summed costs.

    Returns:
        `(skip_returns, jump_returns, costs)`, each `(batch, T)`.
    """
    costs = step_costs(active, read, word_count, skip_cost)
    to_go = ops.flip(ops.cumsum(ops.flip(costs, axis=1), axis=1), axis=1)
    final = final[:, None]
    skip_returns = final + rolling_weight * to_go
    jump_returns = final + rolling_weight * (to_go - costs)
    return skip_returns, jump_returns, costs


def _masked_mean(values, mask):
    # TF1's SUM_BY_NONZERO_WEIGHTS: the mean over the valid steps of the batch.
    return ops.sum(values * mask) / ops.maximum(ops.sum(mask), 1.0)


def _target_loss(logits, target, mask, kind):
    target = ops.cast(target, logits.dtype)
    if kind == "sigmoid_ce":
        # The authors' "entropy": every logit against its target probability.
        per_logit = ops.relu(logits) - logits * target + ops.log1p(ops.exp(-ops.abs(logits)))
        per_step = ops.mean(per_logit, axis=-1)
    else:
        log_target = ops.log(ops.maximum(target, 1e-12))
        per_step = ops.sum(target * (log_target - ops.log_softmax(logits, axis=-1)), axis=-1)
    return _masked_mean(per_step, mask)


@dataclasses.dataclass(frozen=True)
class LossSettings:
    """The settings of `structural_jump_losses` (the model's, and its phase's).

    Args:
        speed_reading: 1.0 with the agents acting, 0.0 in full-read
            pretraining (then the actor and critic losses are off).
        entropy_weight: delta, the weight of the target term.
        skip_cost, rolling_weight: reward settings (paper: 0.5 and 0.1).
        class_weight, actor_weight, critic_weight: alpha, beta, gamma
            (paper: 1, 10, 1).
        advantage: "paper" or "code".
        target_loss: "sigmoid_ce" or "kl".
        explore_skip_target, explore_jump_target: the targets when speed
            reading, as (skip, read) and (next word, separator, sentence,
            end) probabilities.
    """

    speed_reading: float = 1.0
    entropy_weight: float = 0.1
    skip_cost: float = 0.5
    rolling_weight: float = 0.1
    class_weight: float = 1.0
    actor_weight: float = 10.0
    critic_weight: float = 1.0
    advantage: str = "paper"
    target_loss: str = "sigmoid_ce"
    explore_skip_target: tuple = (0.5, 0.5)
    explore_jump_target: tuple = (0.25, 0.25, 0.25, 0.25)

    def __post_init__(self):
        if self.advantage not in ADVANTAGES:
            raise ValueError(f"advantage must be one of {ADVANTAGES}; got {self.advantage!r}")
        if self.target_loss not in TARGET_LOSSES:
            raise ValueError(f"target_loss must be one of {TARGET_LOSSES}; got {self.target_loss!r}")


def structural_jump_losses(trace, logits, labels, word_count, sample_weight=None, **settings):
    """The total loss of eq. 7 and its parts, for one batch.

    `L = class_weight * CE + speed_reading * (actor_weight * L_actor +
    critic_weight * L_critic) + entropy_weight * L_target`.

    - CE: cross-entropy of the prediction made from the last state reached
      along the trajectory (weighted by `sample_weight` if given).
    - L_actor (eq. 5): `-sum m_t log pi(a_t) A_t / sum m_t` per agent, summed;
      masks: visited words (skip agent) and read words (jump agent).
      `advantage="paper"`: A_t = R_t - V_t; `"code"`: A_t = R_0 - V_t (the
      authors' code; unbiased too, but with more variance).
    - L_critic (eq. 6): masked mean of (V_t - R_t)^2 per agent, summed.
    - L_target: pulls each agent's logits towards a target distribution,
      masked mean per agent, summed. `"sigmoid_ce"` (the authors' code):
      mean over logits of the sigmoid cross-entropy to the target
      probability; `"kl"`: KL(target || softmax(logits)). The target is
      the explore distribution when speed reading (uniform by default, the
      paper's "entropy") and "read, next word" in full-read pretraining.

    Rewards, returns, advantages and the final reward carry no gradient.

    Args:
        trace: `(batch, T, 14)` per-step output of `StructuralJumpLSTMCell`.
        logits: `(batch, classes)` prediction.
        labels: int `(batch,)` true classes.
        word_count: `(batch,)` words per document.
        sample_weight: optional `(batch,)` weights of the cross-entropy.
        **settings: the fields of `LossSettings` (`speed_reading`,
            `entropy_weight`, `rolling_weight`, ...).

    Returns:
        dict of scalars: `loss` (the total), `class_loss`, `actor_loss`,
        `critic_loss`, `entropy_loss`, `reward` (mean of final + w * sum of
        costs), `accuracy`; and of batch totals: `words`, `read`,
        `visited`.
    """
    settings = LossSettings(**settings)
    trace = ops.convert_to_tensor(trace)
    dtype = trace.dtype
    logits = ops.cast(logits, dtype)
    labels = ops.cast(ops.reshape(labels, (-1,)), "int32")
    word_count = ops.cast(word_count, dtype)
    speed = ops.cast(settings.speed_reading, dtype)
    active, read = trace[..., TRACE_ACTIVE], trace[..., TRACE_READ]

    class_loss = _class_loss(logits, labels, sample_weight, dtype)
    final, correct = final_rewards(ops.stop_gradient(logits), labels)
    final = ops.stop_gradient(final)
    returns = episode_returns(active, read, word_count, final, settings.skip_cost, settings.rolling_weight)
    actor_loss, critic_loss = _actor_critic_losses(trace, returns[0], returns[1], settings.advantage)
    entropy_loss = _target_losses(trace, speed, settings, dtype)
    loss = (
        settings.class_weight * class_loss
        + speed * (ops.cast(settings.actor_weight, dtype) * actor_loss + settings.critic_weight * critic_loss)
        + ops.cast(settings.entropy_weight, dtype) * entropy_loss
    )
    return {
        "loss": loss,
        "class_loss": class_loss,
        "actor_loss": actor_loss,
        "critic_loss": critic_loss,
        "entropy_loss": entropy_loss,
        "reward": ops.mean(final + settings.rolling_weight * ops.sum(returns[2], axis=1)),
        "accuracy": ops.mean(correct),
        "words": ops.sum(word_count),
        "read": ops.sum(read),
        "visited": ops.sum(active),
    }


def _class_loss(logits, labels, sample_weight, dtype):
    """The (weighted) mean cross-entropy of the prediction."""
    log_probs = ops.log_softmax(logits, axis=-1)
    nll = -ops.take_along_axis(log_probs, labels[:, None], axis=-1)[:, 0]
    if sample_weight is None:
        return ops.mean(nll)
    weight = ops.cast(ops.reshape(sample_weight, (-1,)), dtype)
    return ops.sum(nll * weight) / ops.maximum(ops.sum(weight), 1e-12)


def _actor_critic_losses(trace, skip_returns, jump_returns, advantage):
    """L_actor (eq. 5) and L_critic (eq. 6), each summed over both agents."""
    active, read = trace[..., TRACE_ACTIVE], trace[..., TRACE_READ]
    skip_returns = ops.stop_gradient(skip_returns)
    jump_returns = ops.stop_gradient(jump_returns)
    skip_values = trace[..., TRACE_SKIP_VALUE]
    jump_values = trace[..., TRACE_JUMP_VALUE]
    if advantage == "paper":
        skip_baseline_return, jump_baseline_return = skip_returns, jump_returns
    else:
        # The code's `reward - value`: the episode's total, broadcast in time.
        total = skip_returns[:, :1]
        skip_baseline_return = jump_baseline_return = total
    skip_advantage = ops.stop_gradient(skip_baseline_return - skip_values)
    jump_advantage = ops.stop_gradient(jump_baseline_return - jump_values)

    actor_loss = -_masked_mean(trace[..., TRACE_SKIP_LOG_PROB] * skip_advantage, active) - (
        _masked_mean(trace[..., TRACE_JUMP_LOG_PROB] * jump_advantage, read)
    )
    critic_loss = _masked_mean(ops.square(skip_values - skip_returns), active) + _masked_mean(
        ops.square(jump_values - jump_returns), read
    )
    return actor_loss, critic_loss


def _target_losses(trace, speed, settings, dtype):
    """L_target of both agents: the explore targets when speed reading, "read, next word" before."""
    active, read = trace[..., TRACE_ACTIVE], trace[..., TRACE_READ]
    skip_target = speed * ops.convert_to_tensor(settings.explore_skip_target, dtype) + (1.0 - speed) * (
        ops.convert_to_tensor(FULL_READ_SKIP_TARGET, dtype)
    )
    jump_target = speed * ops.convert_to_tensor(settings.explore_jump_target, dtype) + (1.0 - speed) * (
        ops.convert_to_tensor(FULL_READ_JUMP_TARGET, dtype)
    )
    return _target_loss(trace[..., TRACE_SKIP_LOGITS], skip_target, active, settings.target_loss) + (
        _target_loss(trace[..., TRACE_JUMP_LOGITS], jump_target, read, settings.target_loss)
    )


def check_target(name, values, size):
    """A probability vector of `size` entries, as a tuple of floats."""
    try:
        values = tuple(float(v) for v in values)
    except (TypeError, ValueError):
        raise ValueError(f"Argument `{name}` must be {size} probabilities. Received: {values!r}") from None
    if len(values) != size or min(values) < 0 or abs(sum(values) - 1.0) > 1e-6:
        raise ValueError(f"Argument `{name}` must be {size} probabilities summing to 1. Received: {values!r}")
    return values
