"""The recurrent cells `keras-skim train --cell` can train, in one place.

Each kind names the training function that builds and fits it and the
defaults of the options whose sensible value depends on the model (units,
batch size, learning rate). The CLI's `--cell` choices and help come from
here, and the text classifier builder takes its own kinds from here.
TensorFlow-free, so that `keras-skim --help` stays fast.
"""

import dataclasses

TEXT_CLASSIFIER = "text_classifier"
STRUCTURAL_JUMP = "structural_jump"


@dataclasses.dataclass(frozen=True)
class CellKind:
    """One `--cell` choice.

    Attributes:
        name: The `--cell` value.
        description: One line for help texts.
        trainer: `TEXT_CLASSIFIER` (`keras_skim.training.text_training.train_text_model`:
            embedding, one recurrent layer, logits) or `STRUCTURAL_JUMP`
            (`keras_skim.training.structural_jump_training.train_structural_jump`:
            the two-phase training of a `StructuralJumpLSTM`).
        skims: Whether it has a skim cell (d', gamma and a read threshold).
        units: Default state size.
        learning_rate: Default learning rate.
        batch_size: Default batch size; None lets the trainer choose (per data set).
    """

    name: str
    description: str
    trainer: str
    skims: bool
    units: int
    learning_rate: float
    batch_size: int = None


CELLS = {
    "skim-lstm": CellKind(
        "skim-lstm", "Skim-LSTM (Seo et al. 2018): a big and a small LSTM", TEXT_CLASSIFIER, True, 100, 1e-3, 64
    ),
    "skim-gru": CellKind("skim-gru", "Skim-GRU: a big and a small GRU", TEXT_CLASSIFIER, True, 100, 1e-3, 64),
    "lstm": CellKind("lstm", "LSTM baseline (reads every token)", TEXT_CLASSIFIER, False, 100, 1e-3, 64),
    "gru": CellKind("gru", "GRU baseline (reads every token)", TEXT_CLASSIFIER, False, 100, 1e-3, 64),
    # The paper's sizes and rates (Hansen et al. 2019): LSTM 128, RMSprop 0.0005, batch 32 for
    # Rotten Tomatoes and 100 for IMDB.
    "sj-lstm": CellKind(
        "sj-lstm",
        "Structural-Jump-LSTM (Hansen et al. 2019): skips words and jumps to the next , ; or . ! ? or the end",
        STRUCTURAL_JUMP,
        False,
        128,
        5e-4,
        None,
    ),
}

# The kinds `build_text_classifier` builds.
TEXT_CLASSIFIER_CELLS = tuple(name for name, kind in CELLS.items() if kind.trainer == TEXT_CLASSIFIER)

CELL_HELP = "; ".join(f"{name}: {kind.description}" for name, kind in CELLS.items())


def cell_kind(name):
    """The `CellKind` called `name`; ValueError (one line) for an unknown one."""
    if name not in CELLS:
        raise ValueError(f"unknown cell {name!r}; expected one of {', '.join(CELLS)}")
    return CELLS[name]
