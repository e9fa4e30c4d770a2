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


def stratified_holdout(labels, fractions, seed, describe_class=str):
    """Splits row indices into train and held-out parts, class by class.

    Within each class the rows are shuffled with
    ``numpy.random.RandomState(seed)`` (NumPy keeps RandomState's stream
    fixed across versions, NEP 19, so a recorded seed gives the same split
    later), then each held-out part takes ``round(n * fraction)`` of them,
    at least one, in the order of ``fractions``; train keeps the rest.

    Args:
        labels: 1-D integer labels.
        fractions: Ordered mapping ``part -> fraction`` of the held-out parts,
            e.g. ``{"validation": 0.1, "test": 0.1}``.
        seed: Seed of the shuffle.
        describe_class: ``id -> str`` for the error message.

    Returns:
        Dict ``"train"`` and each part ``-> sorted index array``.

    Raises:
        ValueError: A class has too few rows to give every part one row and
            keep one for training.
    """
    labels = np.asarray(labels)
    rng = np.random.RandomState(seed)
    parts = {name: [] for name in ("train", *fractions)}
    for label in np.unique(labels):
        members = np.flatnonzero(labels == label)
        members = members[rng.permutation(len(members))]
        needed = len(fractions) + 1
        if len(members) < needed:
            raise ValueError(
                f"class {describe_class(int(label))!r} has {len(members)} row(s); holding out "
                f"{' and '.join(fractions)} needs at least {needed} per class"
            )
        start = 0
        for name, fraction in fractions.items():
            count = max(1, int(np.floor(len(members) * fraction + 0.5)))
            count = min(count, len(members) - start - (needed - 1 - list(fractions).index(name)))
            parts[name].append(members[start : start + count])
            start += count
        parts["train"].append(members[start:])
    return {
        name: np.sort(np.concatenate(chunks)) if chunks else np.zeros(0, np.int64) for name, chunks in parts.items()
    }
