"""`ClozeQA`: one recurrent reader over the query then the document, scoring candidate words."""

import keras

from keras_skim.model_kinds import CLI_KINDS, cli_kind, load

# The `--cell` values the reader may be: the kinds with a Keras recurrent layer of their own.
READER_CELLS = tuple(name for name, kind in CLI_KINDS.items() if kind.layer)


def reader_layer(cell, units, small_units, gamma, threshold, seed):
    """The recurrent layer of a `--cell` value (`ModelKind.layer`), named "reader"; a kind with a skim gate
    takes d', gamma, the threshold and the seed of its Gumbel noise."""
    if cell not in READER_CELLS:
        raise ValueError(f"cell must be one of {', '.join(READER_CELLS)}; got {cell!r}")
    kind = cli_kind(cell)
    layer = load(kind.layer)
    if kind.skims:
        return layer(units, small_units, gamma=gamma, threshold=threshold, seed=seed, name="reader")
    return layer(units, name="reader")


@keras.saving.register_keras_serializable(package="keras_skim")
class ClozeQA(keras.Model):
    """Cloze question answering with one recurrent reader (Children's Book Test style).

    The reader reads the query, then the document, as one sequence
    `x_1..x_T` of word embeddings (`tokens`: the query's ids, then the
    document's, then padding 0), and its last state `h` scores each
    candidate word `c_k` by its embedding `e(c_k)`:

        h = RNN(x_1, ..., x_T)
        s_k = e(c_k) . (W h)
        P(answer = c_k) = softmax_k(s_k)

    as in the cloze model of Seo et al. (ICLR 2018, Table 5), where the
    reader is an LSTM or a skim reader: the kinds of the model-kind table
    with a skim gate (`keras_skim.model_kinds.CLI_KINDS`, `kind.skims`),
    whose big cell (d units) reads a token and whose small cell (d' units)
    skims it, with the skim loss `gamma * mean(-log p(skim))` added to the
    cross-entropy of the answer. The candidates share the reader's
    embedding. The skim cells report the fraction of tokens they skimmed in
    `fit` and `evaluate` logs (`skim_rate`).

    Args:
        vocabulary_size: Rows of the embedding; id 0 is padding, id 1 an
            unknown word.
        cell: The reader: one of `READER_CELLS` (`keras-skim train --cell`
            values), e.g. `"lstm"`.
        embedding_dim: Size of the word embedding (and of `W h`).
        units: The reader's state size d (the paper: 200).
        small_units: d', the small cell's size (skim readers only).
        gamma: Weight of the skim loss (skim readers only).
        threshold: The inference threshold on p(read) (skim readers only).
        num_candidates: Candidates per question (CBT: 10).
        seed: Seed of a skim reader's Gumbel noise, or None.
        **kwargs: `keras.Model` arguments (`name`, ...).

    Call arguments:
        inputs: A dict with `"tokens"`, int `(batch, T)` (the query's ids,
            then the document's, padded with 0 at the end) and
            `"candidates"`, int `(batch, num_candidates)`.

    Returns:
        The scores `s_k`, float `(batch, num_candidates)` (logits: the
        label is the answer's index among the candidates).

    Example:

    >>> import numpy as np
    >>> model = ClozeQA(vocabulary_size=50, cell="lstm", embedding_dim=8, units=16, num_candidates=4)
    >>> tokens = np.array([[5, 6, 7, 2, 3, 0]], dtype="int32")
    >>> candidates = np.array([[2, 3, 4, 8]], dtype="int32")
    >>> tuple(model({"tokens": tokens, "candidates": candidates}).shape)
    (1, 4)

    Reference:
        - Seo, Min, Farhadi, Hajishirzi, "Neural Speed Reading" with a
          skimming RNN, ICLR 2018, arXiv:1711.02085 (Section 4.2, Table 5).
        - Hill, Bordes, Chopra, Weston, "The Goldilocks Principle: Reading
          Children's Books with Explicit Memory Representations", ICLR 2016
          (the Children's Book Test).
    """

    def __init__(
        self,
        vocabulary_size,
        cell="lstm",
        embedding_dim=100,
        units=200,
        small_units=10,
        gamma=0.01,
        threshold=0.5,
        num_candidates=10,
        seed=None,
        **kwargs,
    ):
        tokens = keras.Input((None,), dtype="int32", name="tokens")
        candidates = keras.Input((num_candidates,), dtype="int32", name="candidates")
        embedding = keras.layers.Embedding(vocabulary_size, embedding_dim, mask_zero=True, name="embedding")
        state = reader_layer(cell, units, small_units, gamma, threshold, seed)(embedding(tokens))
        projected = keras.layers.Dense(embedding_dim, use_bias=False, name="answer_projection")(state)
        scores = keras.layers.Dot(axes=(2, 1), name="scores")([embedding(candidates), projected])
        super().__init__(inputs={"tokens": tokens, "candidates": candidates}, outputs=scores, **kwargs)
        self.vocabulary_size = vocabulary_size
        self.cell = cell
        self.embedding_dim = embedding_dim
        self.units = units
        self.small_units = small_units
        self.gamma = gamma
        self.threshold = threshold
        self.num_candidates = num_candidates
        self.seed = seed

    def get_config(self):
        return {
            "name": self.name,
            "trainable": self.trainable,
            "vocabulary_size": self.vocabulary_size,
            "cell": self.cell,
            "embedding_dim": self.embedding_dim,
            "units": self.units,
            "small_units": self.small_units,
            "gamma": self.gamma,
            "threshold": self.threshold,
            "num_candidates": self.num_candidates,
            "seed": self.seed,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**config)
