"""The skim paper's LSTM+Attention SQuAD reader (Seo et al. 2018, Appendix A.1)."""

import keras
from keras import ops

from keras_skim.models.span_qa.span_qa_ops import attend
from keras_skim.models.span_qa.span_reader import (
    build_reader,
    build_readers,
    reader_cells,
    span_logits,
    split_inputs,
    word_embedding,
)
from keras_skim.models.span_qa.trilinear_similarity import TrilinearSimilarity


@keras.saving.register_keras_serializable(package="keras_skim")
class LSTMAttentionQA(keras.Model):
    """LSTM+Attention span reader - Seo et al. 2018, Appendix A.1.

    With word vectors x_t of the context and q_j of the question:

        a_t = softmax_j(w^T [x_t; q_j; x_t * q_j])      (question words j)
        u_t = sum_j a_tj q_j
        g_t = [x_t; u_t; x_t * u_t]

    g goes through two bidirectional reading layers (each an LSTM or a skim
    layer of any kind, chosen per layer by `cells`: d = `units`,
    d' = `small_units`), and the start and end logits of position t are two
    learned weighted sums of the second layer's output h_t:

        start_t = w_1^T h_t + b_1,    end_t = w_2^T h_t + b_2

    (padding positions get -1e9). Trained with the sum of the two negative
    log probabilities, -log p_start(s) - log p_end(e) (`compile_span_reader`:
    sparse categorical cross-entropy on each output, summed by Keras), plus
    gamma times each skim layer's skim loss.

    Args:
        vocabulary_size: int, rows of the word embedding (index 0 is padding).
        embedding_dim: int, size of the word vectors. Defaults to 100
            (GloVe 100d in the paper).
        units: int, d of each direction of each layer. Defaults to 100.
        small_units: int, d' of the skim layers. Defaults to 20.
        cells: a `--cell` value (`READER_CELLS`: "lstm", "gru", the skim kinds) for
            both layers, or a pair, one per layer. Defaults to "lstm".
        gamma: float, skim loss weight. Defaults to 0.01.
        threshold: float, the skim layers' inference threshold. Defaults to 0.5.
        train_embedding: whether the embedding is trained. Defaults to True.
        seed: seed of the skim layers' Gumbel noise, or None.
        **kwargs: `keras.Model` keyword arguments, such as `name`.

    Call arguments:
        inputs: `(context_ids, question_ids)`, int tensors `(batch, T)` and
            `(batch, J)` padded with 0 (or a dict with keys "context" and
            "question").
        training: bool.

    Returns:
        `(start_logits, end_logits)`, each `(batch, T)`.

    Example:

    >>> import numpy as np
    >>> from keras_skim.model_kinds import DEFAULT_CELL
    >>> from keras_skim.models import LSTMAttentionQA, compile_span_reader
    >>> model = LSTMAttentionQA(50, embedding_dim=8, units=8, small_units=2, cells=(DEFAULT_CELL, "lstm"))
    >>> context, question = np.ones((2, 7), "int32"), np.ones((2, 3), "int32")
    >>> compile_span_reader(model)
    >>> history = model.fit((context, question), (np.zeros(2), np.ones(2)), epochs=1, verbose=0)
    >>> [tuple(logits.shape) for logits in model((context, question))]
    [(2, 7), (2, 7)]

    Reference:
        Minjoon Seo, Sewon Min, Ali Farhadi, Hannaneh Hajishirzi.
        "Neural Speed Reading" (the skim paper). ICLR 2018, Appendix A.1.
        https://arxiv.org/abs/1711.02085
    """

    READERS = ("layer_1", "layer_2")

    def __init__(
        self,
        vocabulary_size,
        embedding_dim=100,
        units=100,
        small_units=20,
        cells="lstm",
        gamma=0.01,
        threshold=0.5,
        train_embedding=True,
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.vocabulary_size, self.embedding_dim = vocabulary_size, embedding_dim
        self.units, self.small_units, self.cells = units, small_units, reader_cells(cells, len(self.READERS))
        self.gamma, self.threshold, self.train_embedding, self.seed = gamma, threshold, train_embedding, seed
        self.embedding = word_embedding(vocabulary_size, embedding_dim, train_embedding)
        self.similarity = TrilinearSimilarity(name="similarity")
        self.readers = build_readers(self.cells, units, small_units, gamma, threshold, seed, self.READERS)
        self.start_dense = keras.layers.Dense(1, name="start")
        self.end_dense = keras.layers.Dense(1, name="end")

    def build(self, input_shape):
        build_reader(self, input_shape)

    def call(self, inputs, training=None):
        start, end, _ = self.read(inputs, training)
        return start, end

    def read(self, inputs, training=None, seen=None):
        """`(start_logits, end_logits, counts)`: `counts` one `(batch, 2, 2)`
        tensor per reading layer (`BidirectionalReader.read`); a list `seen`
        gets each reading layer's input sequences, in `READERS` order."""
        context, question, context_mask, question_mask = split_inputs(inputs)
        x, q = self.embedding(context), self.embedding(question)
        u = attend(self.similarity(x, q), q, question_mask)
        h = ops.concatenate([x, u, x * u], axis=-1)
        counts = []
        for reader in self.readers:
            if seen is not None:
                seen.append(h)
            h, count = reader.read(h, context_mask, training)
            counts.append(count)
        return span_logits(self.start_dense, h, context_mask), span_logits(self.end_dense, h, context_mask), counts

    def get_config(self):
        return {
            **super().get_config(),
            "vocabulary_size": self.vocabulary_size,
            "embedding_dim": self.embedding_dim,
            "units": self.units,
            "small_units": self.small_units,
            "cells": list(self.cells),
            "gamma": self.gamma,
            "threshold": self.readers[0].get_config()["threshold"],
            "train_embedding": self.train_embedding,
            "seed": self.seed,
        }
