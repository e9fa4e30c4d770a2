"""The greedy policy of a Structural-Jump-LSTM on a data split: accuracy,
reading fractions, Flop-r and the reward the training maximises (the epoch
and step loops validate with it)."""

import numpy as np


def greedy_rewards(logits, labels, word_count, visited, read, skip_cost=0.5, rolling_weight=0.1):
    """Per-document reward of the greedy policy, as the loss defines it:
    `final + w * sum_t r_t` with `final = max(1[correct], p(true class))`
    and `r_t` = -1/n per read word, -skip_cost/n per skipped one
    (`keras_skim.models.structural_jump.actor_critic_loss`), in NumPy."""
    logits = np.asarray(logits, np.float64)
    labels = np.asarray(labels).reshape(-1).astype(np.int64)
    if len(labels) == 0:
        return np.zeros((0,), np.float64)
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    p_true = (shifted / shifted.sum(axis=1, keepdims=True))[np.arange(len(labels)), labels]
    final = np.maximum((logits.argmax(axis=1) == labels).astype(np.float64), p_true)
    read = np.asarray(read, np.float64)
    skipped = np.asarray(visited, np.float64) - read
    n = np.maximum(np.asarray(word_count, np.float64), 1.0)
    return final - rolling_weight * (read + skip_cost * skipped) / n


def evaluate_structural_jump(model, token_ids, labels, batch_size=128):
    """Accuracy, reading fractions, Flop-r and mean reward of the greedy policy.

    Returns:
        dict: `accuracy`, the corpus totals and fractions of
        `structural_jump_statistics` (`read_fraction`, `skip_fraction`,
        `jump_fraction`, `per_document`, `jump_actions`, ...), `flop_r`
        (corpus level), `flop_r_per_document_mean`, `reward` (mean over the
        documents of the episode reward the training maximises) and
        `examples`.
    """
    from keras_skim.models.structural_jump.structural_jump_flops import structural_jump_flop_report
    from keras_skim.models.structural_jump.structural_jump_statistics import structural_jump_statistics

    labels = np.asarray(labels).reshape(-1).astype(np.int64)
    order = np.argsort((np.asarray(token_ids) != 0).sum(axis=1), kind="stable")
    stats = structural_jump_statistics(model, np.asarray(token_ids)[order], batch_size=batch_size)
    counts = stats.pop("counts")
    predictions = stats.pop("predictions")
    logits = stats.pop("logits")
    flops = structural_jump_flop_report(
        counts["word_count"],
        counts["visited"],
        counts["read"],
        model.units,
        model.embedding_dim,
        model.agent_units,
    )
    rewards = greedy_rewards(
        logits,
        labels[order],
        counts["word_count"],
        counts["visited"],
        counts["read"],
        model.skip_cost,
        model.rolling_weight,
    )
    return {
        "accuracy": float(np.mean(predictions == labels[order])) if len(labels) else 0.0,
        **stats,
        "flop_r": flops["flop_r"],
        "flop_r_per_document_mean": flops["flop_r_per_document_mean"],
        "reward": float(rewards.mean()) if len(rewards) else 0.0,
        "examples": int(len(labels)),
    }
