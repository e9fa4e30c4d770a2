"""Training and scoring the span readers: `model.fit` on encoded SQuAD
examples, then SQuAD F1 / EM and the skim rate per layer and direction."""

import dataclasses

import numpy as np

from keras_skim.analysis.squad_metrics import squad_scores
from keras_skim.datasets.squad import span_text
from keras_skim.model_kinds import load, skim_gate
from keras_skim.models.span_qa.span_qa_data import best_spans
from keras_skim.models.span_qa.span_reader import compile_span_reader, skim_rates


@dataclasses.dataclass(frozen=True)
class SpanTrainingConfig:
    """What `fit_span_reader` builds and how it trains.

    Attributes:
        model_class: "module:Class" of the reader (`ModelTask.models`).
        cells: one `--cell` value per reading layer, or one for all.
        units, small_units, embedding_dim, gamma: the reader's sizes and skim loss weight.
        epochs, batch_size, learning_rate: the fit's.
        seed: seed of the weights and the Gumbel noise.
    """

    model_class: str
    cells: object = "lstm"
    units: int = 100
    small_units: int = 20
    embedding_dim: int = 100
    gamma: float = 0.01
    epochs: int = 5
    batch_size: int = 32
    learning_rate: float = 1e-3
    seed: int = 0


def build_span_reader(config, vocabulary_size):
    """The (compiled) reader that `config` names."""
    import keras

    keras.utils.set_random_seed(config.seed)
    model = load(config.model_class)(
        vocabulary_size,
        embedding_dim=config.embedding_dim,
        units=config.units,
        small_units=config.small_units,
        cells=config.cells,
        gamma=config.gamma,
        seed=config.seed,
    )
    compile_span_reader(model, config.learning_rate)
    return model


def fit_span_reader(config, vocabulary_size, train, verbose=0):
    """A reader fitted on the answerable examples of `train` (`EncodedSpans`)."""
    rows = np.flatnonzero(train.answerable)
    if not len(rows):
        raise ValueError("no training question has its answer inside the context (check --max-length)")
    model = build_span_reader(config, vocabulary_size)
    model.fit(
        (train.context[rows], train.question[rows]),
        (train.start[rows], train.end[rows]),
        epochs=config.epochs,
        batch_size=config.batch_size,
        verbose=verbose,
    )
    return model


def evaluate_span_reader(model, encoded, batch_size=64, threshold=None):
    """SQuAD F1 and EM (percent) of `model` on `encoded` (`EncodedSpans`), the
    reading report per layer and direction (`skim_rates`) and each
    question's predicted text.

    Returns:
        {"f1", "exact_match", "questions", "layers", "skim_rate", "predictions"}.
    """
    gate = skim_gate()
    predictions, counts = {}, None
    with gate.thresholds_set_to(gate.gated_cells(model), threshold):
        for begin in range(0, len(encoded.examples), batch_size):
            rows = np.arange(begin, min(begin + batch_size, len(encoded.examples)))
            start, end, batch_counts = model.read((encoded.context[rows], encoded.question[rows]), training=False)
            batch_counts = [np.asarray(count).sum(axis=0) for count in batch_counts]
            counts = batch_counts if counts is None else [a + b for a, b in zip(counts, batch_counts)]
            for row, (first, last) in zip(rows, best_spans(start, end)):
                predictions[encoded.examples[row].id] = _answer(encoded, row, first, last)
    scores = squad_scores(predictions, {example.id: list(example.answers) for example in encoded.examples})
    layers = skim_rates(model.READERS, counts)
    tokens = sum(row[d]["tokens"] for row in layers.values() for d in ("forward", "backward"))
    skimmed = sum(row[d]["skimmed"] for row in layers.values() for d in ("forward", "backward"))
    overall = skimmed / tokens if tokens else 0.0
    return {**scores, "layers": layers, "skim_rate": overall, "predictions": predictions}


def _answer(encoded, row, first, last):
    offsets = encoded.offsets[row]
    if not offsets:
        return ""
    last = min(int(last), len(offsets) - 1)
    return span_text(encoded.examples[row].context, offsets, min(int(first), last), last)
