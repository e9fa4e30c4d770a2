"""BiDAF (Seo et al. 2017) with reading layers that may skim."""

import keras
from keras import ops

from keras_skim.models.span_qa.span_qa_ops import attend, masked_logits, masked_softmax
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
class BiDAF(keras.Model):
    """Bidirectional Attention Flow - Seo et al. 2017, with skim reading layers (Sk-BiDAF).

    Word vectors (a trained embedding; the paper's character CNN is omitted
    here, so `BiDAF` is the paper's word-level model) go through a
    `highway_layers`-deep highway network, shared by context and question:
    y = t * relu(W_h x + b_h) + (1 - t) * x, t = sigmoid(W_t x + b_t). A
    contextual bidirectional layer, shared too, gives the context H (T x 2d)
    and the question U (J x 2d). The attention flow:

        S_tj = w^T [h_t; u_j; h_t * u_j]
        u~_t = sum_j a_tj u_j,   a_t = softmax_j(S_tj)          (context-to-query)
        h~   = sum_t b_t h_t,    b = softmax_t(max_j S_tj)       (query-to-context)
        G_t  = [h_t; u~_t; h_t * u~_t; h_t * h~]

    Two modeling bidirectional layers give M from G; the output layer:

        p_start = softmax(w_1^T [G; M]),   M2 = BiLayer(M),   p_end = softmax(w_2^T [G; M2])

    Each of the four bidirectional layers (contextual, modeling_1,
    modeling_2, output) is an LSTM or a skim layer (`cells`); the skim
    paper's Sk-BiDAF (Seo et al. 2018) replaces the LSTMs by skim layers. The loss is
    the sum of the two negative log probabilities (`compile_span_reader`)
    plus gamma times each skim layer's skim loss. Dropout is left out.

    Args:
        vocabulary_size: int, rows of the word embedding (index 0 is padding).
        embedding_dim: int, size of the word vectors. Defaults to 100.
        units: int, d of each direction of each layer. Defaults to 100.
        small_units: int, d' of the skim layers. Defaults to 20.
        cells: a `--cell` value (`READER_CELLS`) for all four layers or four of them
            (contextual, modeling_1, modeling_2, output). Defaults to "lstm".
        gamma: float, skim loss weight. Defaults to 0.001 (the paper's Sk-BiDAF).
        threshold: float, the skim layers' inference threshold. Defaults to 0.5.
        highway_layers: int, depth of the highway network. Defaults to 2.
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
    >>> from keras_skim.models import BiDAF, compile_span_reader
    >>> model = BiDAF(50, embedding_dim=8, units=4, small_units=2, cells=DEFAULT_CELL)
    >>> context, question = np.ones((2, 7), "int32"), np.ones((2, 3), "int32")
    >>> compile_span_reader(model)
    >>> history = model.fit((context, question), (np.zeros(2), np.ones(2)), epochs=1, verbose=0)
    >>> [tuple(logits.shape) for logits in model((context, question))]
    [(2, 7), (2, 7)]

    Reference:
        Minjoon Seo, Aniruddha Kembhavi, Ali Farhadi, Hannaneh Hajishirzi.
        "Bidirectional Attention Flow for Machine Comprehension". ICLR 2017.
        https://arxiv.org/abs/1611.01603
    """

    READERS = ("contextual", "modeling_1", "modeling_2", "output")

    def __init__(
        self,
        vocabulary_size,
        embedding_dim=100,
        units=100,
        small_units=20,
        cells="lstm",
        gamma=0.001,
        threshold=0.5,
        highway_layers=2,
        train_embedding=True,
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.vocabulary_size, self.embedding_dim, self.highway_layers = vocabulary_size, embedding_dim, highway_layers
        self.units, self.small_units, self.cells = units, small_units, reader_cells(cells, len(self.READERS))
        self.gamma, self.threshold, self.train_embedding, self.seed = gamma, threshold, train_embedding, seed
        self.embedding = word_embedding(vocabulary_size, embedding_dim, train_embedding)
        self.highway_transforms = [
            keras.layers.Dense(embedding_dim, activation="relu", name=f"highway_{i}") for i in range(highway_layers)
        ]
        self.highway_gates = [
            keras.layers.Dense(embedding_dim, activation="sigmoid", name=f"highway_gate_{i}")
            for i in range(highway_layers)
        ]
        self.similarity = TrilinearSimilarity(name="similarity")
        self.readers = build_readers(self.cells, units, small_units, gamma, threshold, seed, self.READERS)
        self.start_dense = keras.layers.Dense(1, name="start")
        self.end_dense = keras.layers.Dense(1, name="end")

    def build(self, input_shape):
        build_reader(self, input_shape)

    def call(self, inputs, training=None):
        start, end, _ = self.read(inputs, training)
        return start, end

    def _highway(self, x):
        for transform, gate in zip(self.highway_transforms, self.highway_gates):
            t = gate(x)
            x = t * transform(x) + (1.0 - t) * x
        return x

    def read(self, inputs, training=None, seen=None):
        """`(start_logits, end_logits, counts)`: `counts` one `(batch, 2, 2)`
        tensor per reading layer (`BidirectionalReader.read`; the contextual
        layer's over the context, not the question); a list `seen` gets each
        reading layer's input sequences over the context, in `READERS` order."""
        context, question, context_mask, question_mask = split_inputs(inputs)
        contextual, modeling_1, modeling_2, output = self.readers
        embedded = self._highway(self.embedding(context))
        h, contextual_count = contextual.read(embedded, context_mask, training)
        u = contextual.read(self._highway(self.embedding(question)), question_mask, training)[0]
        similarity = self.similarity(h, u)
        attended = attend(similarity, u, question_mask)
        best = ops.max(masked_logits(similarity, ops.expand_dims(question_mask, 1)), axis=-1)
        pooled = ops.matmul(ops.expand_dims(masked_softmax(best, context_mask), 1), h)  # (B, 1, 2d)
        g = ops.concatenate([h, attended, h * attended, h * pooled], axis=-1)
        m1, count_1 = modeling_1.read(g, context_mask, training)
        m, count_2 = modeling_2.read(m1, context_mask, training)
        m2, output_count = output.read(m, context_mask, training)
        if seen is not None:
            seen.extend([embedded, g, m1, m])
        start = span_logits(self.start_dense, ops.concatenate([g, m], axis=-1), context_mask)
        end = span_logits(self.end_dense, ops.concatenate([g, m2], axis=-1), context_mask)
        return start, end, [contextual_count, count_1, count_2, output_count]

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
            "highway_layers": self.highway_layers,
            "train_embedding": self.train_embedding,
            "seed": self.seed,
        }
