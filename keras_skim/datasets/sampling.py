"""Seeded subsets and splits shared by the loaders."""
import numpy as np


def balanced_subset(labels, limit, seed=0):
    """Picks a seeded, class-balanced random subset.

    Each class gets ``limit // n_classes`` items, the remainder going one
    each to the smallest class ids; a class with too few items gives all it
    has. The picked indices are returned in a seeded random order, so that a
    small subset is already mixed for training.

    Args:
        labels: 1-D integer labels.
        limit: Number of items wanted; None or >= len(labels) keeps all.
        seed: Seed of the random choice.

    Returns:
        Integer index array into ``labels``.
    """
    labels = np.asarray(labels)
    if limit is None or limit >= len(labels):
        return np.arange(len(labels))
    if limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    rng = np.random.default_rng(seed)
    classes = np.unique(labels)
    base, extra = divmod(int(limit), len(classes))
    chosen = []
    for position, label in enumerate(classes):
        members = np.flatnonzero(labels == label)
        want = min(len(members), base + (1 if position < extra else 0))
        chosen.append(rng.choice(members, size=want, replace=False))
    picked = np.concatenate(chosen) if chosen else np.zeros(0, dtype=np.int64)
    return rng.permutation(picked)


def check_split(split, allowed):
    """Raises ValueError unless ``split`` is one of ``allowed``."""
    if split not in allowed:
        raise ValueError(f"Unknown split {split!r}; expected one of {', '.join(allowed)}.")
