"""Texts (and labels when known) for `keras-skim bench`; no TensorFlow."""

import numpy as np

from keras_skim.datasets.errors import DatasetUnavailableError, DataSourceError
from keras_skim.datasets.registry import DEFAULT_SPLIT_SEED, resolve_data


class BenchDataError(ValueError):
    """Unreadable benchmark data; the message is one line."""


def load_bench_texts(spec, samples, split="test", split_seed=DEFAULT_SPLIT_SEED, num_classes=None, class_names=None):
    """(texts, class ids or None, description) from any `--data` argument.

    Labelled data gives a seeded class-balanced sample of `samples` texts
    from `split` (for a file without its own split, the stratified hold-out
    that `keras-skim train` made with the same `split_seed`); an unlabelled
    file (a `.txt` of one text per line, a table without a label column)
    gives its first `samples` texts.

    Args:
        spec: A `--data` argument (see `keras_skim.datasets.registry`).
        samples: How many texts.
        split: `train`, `validation`, `test` or `all`.
        split_seed: Seed of the held-out split.
        num_classes: The model's class count (its logits; 1 = binary); the
            data's labels must have as many classes.
        class_names: The model's class names (`metadata.json`), or None:
            labels are then mapped to the model's class ids through them,
            as `keras-skim evaluate` does, not by their sorted position.

    Raises:
        BenchDataError: One line naming the data and what is wrong.
    """
    try:
        usable = class_names and (num_classes is None or len(class_names) == max(int(num_classes), 2))
        recorded = {"classes": list(class_names)} if usable else None
        source = resolve_data(spec, split_seed=split_seed, recorded=recorded)
        texts, labels = source.load(split if source.labelled else "all", limit=samples, seed=0)
    except (DataSourceError, DatasetUnavailableError) as err:
        raise BenchDataError(" ".join(str(err).split())) from None
    if labels is None:
        return list(texts), None, f"{spec} (no labels), first {len(texts)} texts"
    if num_classes is not None and max(int(num_classes), 2) != len(source.classes):
        raise BenchDataError(
            f"{spec}: {len(source.classes)} classes ({', '.join(source.classes)}), but the model has "
            f"{max(int(num_classes), 2)}"
        )
    description = f"{source.describe(split)}, seeded class-balanced sample of {len(texts)}"
    return list(texts), [int(v) for v in labels], description


# Tokens of a random input whose export records no length (a model exported from memory).
DEFAULT_RANDOM_LENGTH = 200


def random_task_inputs(metadata, vocabulary_size, count, seed=0):
    """([{input name: int32 ids [T]}], description) of `count` random inputs
    of a task export (`metadata.task`): each token input as long as the
    task's `input_lengths` says, ids in [1, `vocabulary_size`)."""
    rng = np.random.default_rng(seed)
    lengths = {
        name: int((metadata.task.get("input_lengths") or {}).get(name) or DEFAULT_RANDOM_LENGTH)
        for name in metadata.inputs
        if name != "threshold"
    }
    inputs = [
        {name: rng.integers(1, vocabulary_size, size=length).astype(np.int32) for name, length in lengths.items()}
        for _ in range(count)
    ]
    described = ", ".join(f"{name} {length}" for name, length in lengths.items())
    return inputs, f"random token ids ({described} tokens)"
