"""The text classifier family's training settings, as one typed value.

`keras-skim train` (for the family's cells) and `keras-skim demo` build a
`TextClassifierTrainingConfig` from their options and pass it whole to
`text_classifier_training.train_text_classifier`; `train_config.json`
records its fields (`training_arguments`).
"""

import dataclasses
import os

from keras_skim.datasets.registry import DEFAULT_SPLIT_SEED
from keras_skim.training.settings import check_flag, check_integer, check_number


@dataclasses.dataclass(frozen=True)
class TextClassifierTrainingConfig:
    """How to train a text classifier (embedding, one recurrent layer, logits).

    Args:
        cell: one of `keras_skim.model_kinds.text_classifier_cells()`
            (default: the first, the table's skimming LSTM).
        units: the state size d.
        small_units: d', the small state of a skimming cell (0: skip the word).
        gamma: the weight of the skim loss.
        threshold: read a token iff p(read) >= threshold (inference).
        epochs: training epochs.
        batch_size: texts per batch.
        learning_rate: Adam's.
        max_length: tokens per text (None: the data's default).
        max_tokens: the vocabulary size of the fitted tokenizer.
        glove: initialise the embedding with GloVe 6B 50d.
        limit: train on a seeded class-balanced subset of this many texts.
        seed: seed of everything random.
        split_seed: seed of the held-out split of data without its own.
        temperature_rate: the Gumbel temperature's decay rate per step.
        train_embedding: fine-tune the embedding (False: keep it fixed).
        early_stopping: stop on validation accuracy (patience 2 epochs, or
            `patience_steps`).
        patience_steps: stop when validation accuracy has not improved for
            this many training steps (Seo et al.'s 3,000), checked
            at each epoch's end; None: patience 2 epochs.
        dropout: dropout rate on the recurrent layer's output, in training
            (`TextClassifierSpec.dropout`).

    Raises:
        ValueError: a setting out of its range (one line).
    """

    cell: str = dataclasses.field(default_factory=lambda: _cells()[0])
    units: int = 100
    small_units: int = 10
    gamma: float = 0.01
    threshold: float = 0.5
    epochs: int = 5
    batch_size: int = 64
    learning_rate: float = 1e-3
    max_length: int | None = None
    max_tokens: int = 20000
    glove: bool = True
    limit: int | None = None
    seed: int = 0
    split_seed: int = DEFAULT_SPLIT_SEED
    temperature_rate: float = 1e-4
    train_embedding: bool = True
    early_stopping: bool = True
    patience_steps: int = None
    dropout: float = 0.0

    def __post_init__(self):
        if self.cell not in _cells():
            raise ValueError(f"cell must be one of {', '.join(_cells())}; got {self.cell!r}")
        for name in ("units", "epochs", "batch_size", "max_tokens"):
            check_integer(name, getattr(self, name), 1)
        for name in ("max_length", "limit", "patience_steps"):
            check_integer(name, getattr(self, name), 1, optional=True)
        for name in ("small_units", "seed", "split_seed"):
            check_integer(name, getattr(self, name), 0)
        for name in ("gamma", "threshold", "learning_rate", "temperature_rate"):
            check_number(name, getattr(self, name))
        check_number("dropout", self.dropout)
        if not self.dropout < 1:
            raise ValueError(f"dropout must be a number in [0, 1); got {self.dropout!r}")
        for name in ("glove", "train_embedding", "early_stopping"):
            check_flag(name, getattr(self, name))
        if self.patience_steps is not None and not self.early_stopping:
            raise ValueError("patience_steps needs early_stopping (it is early stopping counted in steps)")


def _cells():
    from keras_skim.model_kinds import text_classifier_cells

    return text_classifier_cells()


def training_arguments(output_dir, dataset, config):
    """The `arguments` of `train_config.json`: the output folder, the data
    (its resolved spec) and every setting of `config`, in this order."""
    return {"output_dir": os.fspath(output_dir), "dataset": dataset, **dataclasses.asdict(config)}
