"""The text classifier the CLI trains: embedding, one recurrent layer, logits.

Two classes keep one logit (sigmoid, binary cross-entropy), the form of every
model and export written before several classes were supported; k > 2
classes get k logits (softmax, sparse categorical cross-entropy).
"""

import dataclasses

import keras

from keras_skim.model_kinds import cli_kind, load, text_classifier_cells

CELL_KINDS = text_classifier_cells()


@dataclasses.dataclass(frozen=True)
class TextClassifierSpec:
    """The settings of `build_text_classifier` beyond the cell and the data's shape.

    Attributes:
        embedding_dim: embedding size (50 with GloVe 6B 50d).
        units, small_units, gamma, threshold: the skim cell's d, d', gamma
            and inference threshold.
        embedding_matrix: optional initial embedding, e.g. GloVe.
        train_embedding: whether the embedding is trained.
        dropout: dropout on the RNN's output.
        seed: seed of the skim cell's Gumbel noise.
        num_classes: number of classes, at least 2.
    """

    embedding_dim: int = 50
    units: int = 100
    small_units: int = 10
    gamma: float = 0.01
    threshold: float = 0.5
    embedding_matrix: object = None
    train_embedding: bool = False
    dropout: float = 0.0
    seed: object = None
    num_classes: int = 2


def build_text_classifier(cell, vocabulary_size, max_length, spec=None, **settings):
    """Embedding(mask_zero) -> RNN -> Dense(1) logit (two classes) or
    Dense(num_classes) logits.

    Args:
        cell: one of `CELL_KINDS`; "lstm" and "gru" are the baselines.
        vocabulary_size: rows of the embedding (index 0 = padding).
        max_length: input length T.
        spec: a `TextClassifierSpec`; None: one built from `settings`.
        **settings: `TextClassifierSpec`'s fields as keywords (`units=64`,
            ...), instead of `spec`.

    Returns:
        An uncompiled `keras.Model`.
    """
    if spec is not None and settings:
        raise TypeError("build_text_classifier takes a spec or its settings as keywords, not both")
    spec = spec if spec is not None else TextClassifierSpec(**settings)
    num_classes, embedding_matrix = spec.num_classes, spec.embedding_matrix
    if num_classes < 2:
        raise ValueError(f"num_classes must be at least 2; got {num_classes}")
    if cell not in CELL_KINDS:
        raise ValueError(f"cell must be one of {', '.join(CELL_KINDS)}; got {cell!r}")
    inputs = keras.Input((max_length,), dtype="int32", name="token_ids")
    # The word vectors are assigned after the layer is built, not given as a Constant initializer: an
    # initializer is part of the config, and it wrote the whole GloVe matrix into every model.keras's
    # config.json (19.6 MB for 18,724 x 50 floats as JSON text). "zeros" draws no random numbers, so the
    # layers after it get the same initial weights as with the Constant initializer.
    embedding = keras.layers.Embedding(
        vocabulary_size,
        spec.embedding_dim,
        mask_zero=True,
        embeddings_initializer="zeros" if embedding_matrix is not None else "uniform",
        trainable=spec.train_embedding or embedding_matrix is None,
        name="embedding",
    )
    x = embedding(inputs)
    if embedding_matrix is not None:
        embedding.embeddings.assign(embedding_matrix)
    x = recurrent_layer(cell, spec.units, spec.small_units, spec.gamma, spec.threshold, spec.seed)(x)
    if spec.dropout:
        x = keras.layers.Dropout(spec.dropout, name="dropout")(x)
    if num_classes == 2:
        logits = keras.layers.Dense(1, name="logit")(x)
    else:
        logits = keras.layers.Dense(num_classes, name="logits")(x)
    return keras.Model(inputs, logits, name=f"{cell.replace('-', '_')}_classifier")


def recurrent_layer(cell, units, small_units, gamma, threshold, seed):
    """The recurrent layer of a `--cell` value: its kind's `layer` in the
    model-kind table, named by its `layer_name` (else the kind's name).

    A kind with a skim gate takes d', gamma, the threshold and the seed of
    its Gumbel noise. Its layer owns its training loop (both cells and the
    gate in one input and one recurrent matmul per step); the layer's `cell` is the skim
    cell that the exporter and the other tools read, as in the models saved
    as `keras.layers.RNN(cell)` before, which still load.
    """
    kind = cli_kind(cell)
    layer = load(kind.layer)
    name = kind.layer_name or kind.name
    if kind.skims:
        return layer(units, small_units, gamma=gamma, threshold=threshold, seed=seed, name=name)
    return layer(units, name=name)


def compile_text_classifier(model, learning_rate=1e-3):
    """Adam with the loss and accuracy metric the model's head calls for:
    binary on one logit (labels 0/1), sparse categorical on k logits."""
    if model.outputs[0].shape[-1] == 1:
        loss = keras.losses.BinaryCrossentropy(from_logits=True)
        metric = keras.metrics.BinaryAccuracy(threshold=0.0, name="accuracy")
    else:
        loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        metric = keras.metrics.SparseCategoricalAccuracy(name="accuracy")
    model.compile(optimizer=keras.optimizers.Adam(learning_rate), loss=loss, metrics=[metric])
    return model
