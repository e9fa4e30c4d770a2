"""The text classifier the CLI trains: embedding, one recurrent layer, logit."""
import keras

from keras_skim.layers.skim_gru_cell import SkimGRUCell
from keras_skim.layers.skim_lstm_cell import SkimLSTMCell

CELL_KINDS = ("skim-lstm", "skim-gru", "lstm", "gru")


def build_text_classifier(
    cell,
    vocabulary_size,
    max_length,
    embedding_dim=50,
    units=100,
    small_units=10,
    gamma=0.01,
    threshold=0.5,
    embedding_matrix=None,
    train_embedding=False,
    dropout=0.0,
    seed=None,
):
    """Embedding(mask_zero) -> RNN -> Dense(1) logit for binary sentiment.

    Args:
        cell: one of `CELL_KINDS`; "lstm" and "gru" are the baselines.
        vocabulary_size: rows of the embedding (index 0 = padding).
        max_length: input length T.
        embedding_dim: embedding size (50 with GloVe 6B 50d).
        units, small_units, gamma, threshold: the skim cell's d, d', gamma
            and inference threshold.
        embedding_matrix: optional initial embedding, e.g. GloVe.
        train_embedding: whether the embedding is trained.
        dropout: dropout on the RNN's output.
        seed: seed of the skim cell's Gumbel noise.

    Returns:
        An uncompiled `keras.Model`.
    """
    if cell not in CELL_KINDS:
        raise ValueError(f"cell must be one of {', '.join(CELL_KINDS)}; got {cell!r}")
    inputs = keras.Input((max_length,), dtype="int32", name="token_ids")
    initializer = (
        keras.initializers.Constant(embedding_matrix)
        if embedding_matrix is not None
        else "uniform"
    )
    x = keras.layers.Embedding(
        vocabulary_size,
        embedding_dim,
        mask_zero=True,
        embeddings_initializer=initializer,
        trainable=train_embedding or embedding_matrix is None,
        name="embedding",
    )(inputs)
    if cell == "skim-lstm":
        rnn = keras.layers.RNN(
            SkimLSTMCell(units, small_units, gamma=gamma, threshold=threshold, seed=seed),
            name="skim_rnn",
        )
    elif cell == "skim-gru":
        rnn = keras.layers.RNN(
            SkimGRUCell(units, small_units, gamma=gamma, threshold=threshold, seed=seed),
            name="skim_rnn",
        )
    elif cell == "lstm":
        rnn = keras.layers.LSTM(units, name="lstm")
    else:
        rnn = keras.layers.GRU(units, name="gru")
    x = rnn(x)
    if dropout:
        x = keras.layers.Dropout(dropout, name="dropout")(x)
    logits = keras.layers.Dense(1, name="logit")(x)
    return keras.Model(inputs, logits, name=f"{cell.replace('-', '_')}_classifier")


def compile_text_classifier(model, learning_rate=1e-3):
    model.compile(
        optimizer=keras.optimizers.Adam(learning_rate),
        loss=keras.losses.BinaryCrossentropy(from_logits=True),
        metrics=[keras.metrics.BinaryAccuracy(threshold=0.0, name="accuracy")],
    )
    return model
