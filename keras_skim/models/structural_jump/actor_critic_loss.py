"""The episodic actor-critic loss of Structural-Jump-LSTM (Hansen et al.,
ICLR 2019, section 3.1, eq. 5-9), computed after the RNN from the cell's
per-step trace, the prediction and the label.

Everything is a function of tensors so that it can be checked against a
hand-computed example; `StructuralJumpLSTM.compute_loss` calls it.
"""

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


def structural_jump_losses(
    trace,
    logits,
    labels,
    word_count,
    speed_reading=1.0,
    entropy_weight=0.1,
    skip_cost=0.5,
    rolling_weight=0.1,
    class_weight=1.0,
    actor_weight=10.0,
    critic_weight=1.0,
    advantage="paper",
    target_loss="sigmoid_ce",
    explore_skip_target=(0.5, 0.5),
    explore_jump_target=(0.25, 0.25, 0.25, 0.25),
    sample_weight=None,
):
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
        sample_weight: optional `(batch,)` weights of the cross-entropy.

    Returns:
        dict of scalars: `loss` (the total), `class_loss`, `actor_loss`,
        `critic_loss`, `entropy_loss`, `reward` (mean of final + w * sum of
        costs), `accuracy`; and of batch totals: `words`, `read`,
        `visited`.
    """
    if advantage not in ADVANTAGES:
        raise ValueError(f"advantage must be one of {ADVANTAGES}; got {advantage!r}")
    if target_loss not in TARGET_LOSSES:
        raise ValueError(f"target_loss must be one of {TARGET_LOSSES}; got {target_loss!r}")
    trace = ops.convert_to_tensor(trace)
    dtype = trace.dtype
    logits = ops.cast(logits, dtype)
    labels = ops.cast(ops.reshape(labels, (-1,)), "int32")
    word_count = ops.cast(word_count, dtype)
    speed = ops.cast(speed_reading, dtype)

    active = trace[..., TRACE_ACTIVE]
    read = trace[..., TRACE_READ]

    log_probs = ops.log_softmax(logits, axis=-1)
    nll = -ops.take_along_axis(log_probs, labels[:, None], axis=-1)[:, 0]
    if sample_weight is None:
        class_loss = ops.mean(nll)
    else:
        weight = ops.cast(ops.reshape(sample_weight, (-1,)), dtype)
        class_loss = ops.sum(nll * weight) / ops.maximum(ops.sum(weight), 1e-12)

    final, correct = final_rewards(ops.stop_gradient(logits), labels)
    final = ops.stop_gradient(final)
    skip_returns, jump_returns, costs = episode_returns(active, read, word_count, final, skip_cost, rolling_weight)
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
    skip_target = speed * ops.convert_to_tensor(explore_skip_target, dtype) + (1.0 - speed) * (
        ops.convert_to_tensor(FULL_READ_SKIP_TARGET, dtype)
    )
    jump_target = speed * ops.convert_to_tensor(explore_jump_target, dtype) + (1.0 - speed) * (
        ops.convert_to_tensor(FULL_READ_JUMP_TARGET, dtype)
    )
    entropy_loss = _target_loss(trace[..., TRACE_SKIP_LOGITS], skip_target, active, target_loss) + (
        _target_loss(trace[..., TRACE_JUMP_LOGITS], jump_target, read, target_loss)
    )
    loss = (
        class_weight * class_loss
        + speed * (ops.cast(actor_weight, dtype) * actor_loss + critic_weight * critic_loss)
        + ops.cast(entropy_weight, dtype) * entropy_loss
    )
    return {
        "loss": loss,
        "class_loss": class_loss,
        "actor_loss": actor_loss,
        "critic_loss": critic_loss,
        "entropy_loss": entropy_loss,
        "reward": ops.mean(final + rolling_weight * ops.sum(costs, axis=1)),
        "accuracy": ops.mean(correct),
        "words": ops.sum(word_count),
        "read": ops.sum(read),
        "visited": ops.sum(active),
    }


def check_target(name, values, size):
    """A probability vector of `size` entries, as a tuple of floats."""
    try:
        values = tuple(float(v) for v in values)
    except (TypeError, ValueError):
        raise ValueError(f"Argument `{name}` must be {size} probabilities. Received: {values!r}") from None
    if len(values) != size or min(values) < 0 or abs(sum(values) - 1.0) > 1e-6:
        raise ValueError(f"Argument `{name}` must be {size} probabilities summing to 1. Received: {values!r}")
    return values
