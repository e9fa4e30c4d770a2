"""`StructuralJumpClozeQA`: the Structural-Jump-LSTM reading a cloze query, then its document."""

from collections.abc import Sequence
from typing import Any

import keras
import numpy as np
from keras import ops

from keras_skim.models.structural_jump.structural_jump_lstm import StructuralJumpLSTM


def pack_cloze_ids(candidates, query, document):
    """The one int32 array a `StructuralJumpClozeQA` takes: `[candidates (K) | query (Q) | document]` per
    row, each part padded with 0 at its end (one array, so that the family's batches, step loop and
    statistics, which feed on `(N, T)` id arrays, take it as they take a classifier's texts)."""
    return np.concatenate([np.asarray(part, np.int32) for part in (candidates, query, document)], axis=1)


@keras.saving.register_keras_serializable(package="keras_skim")
class StructuralJumpClozeQA(StructuralJumpLSTM):
    """Structural-Jump-LSTM cloze question answering (Children's Book Test style).

    The reader of `StructuralJumpLSTM` reads the query in full, then the
    document with its agents acting (Hansen et al. 2019, section 4: "the
    query is read first"; only the document's words are skipped or jumped,
    and the reading fractions and the word costs of the reward count only
    them). From the state `h_T` after the last document word reached, each
    candidate word `c_k` scores

        s_k = e(c_k) . (W dropout(h_T))
        P(answer = c_k) = softmax_k(s_k)

    with `e` the reader's (fixed) word embedding: the paper's `softmax(C W
    o)`. The reward of the agents is the answer's correctness,
    `max(1[argmax s = answer], P(answer))`, as the classifier's is its
    class's; `compute_loss`, the two-phase step loop
    (`structural_jump_steps`) and the statistics are the classifier's.

    The query is read by forcing the agents' actions (READ and NEXT_WORD,
    `read_words(read_all=True)`), so its words pass through the same LSTM
    step, with the same previous-action inputs, as fully read words.

    Args:
        vocabulary_size: rows of the embedding (ids 0..vocabulary_size-1).
        separator_ids, sentence_end_ids, other_punctuation_ids: the
            tokenizer's punctuation ids, as for `StructuralJumpLSTM`.
        num_candidates: candidates per question K (CBT: 10).
        query_length: Q, the query's columns in the packed input.
        train_embedding: whether the embedding trains (the paper: fixed
            for CBT, in both phases).
        **kwargs: the other `StructuralJumpLSTM` arguments (`units`,
            `embedding_dim`, `agent_units`, ..., not `num_classes`).

    Call arguments:
        packed_ids: int tensor `(batch, K + Q + D)`, `pack_cloze_ids`: the
            candidates' ids, the query's raw ids (padded to Q), the
            document's raw ids (padded).
        training: sample actions and apply dropout (True) or act greedily.

    Returns:
        dict with `logits` `(batch, K)` (the scores s_k; the label is the
        answer's index among the candidates), `trace` `(batch, D, 14)` and
        `word_count` `(batch,)`, both of the document only.

    Example:

    >>> import numpy as np
    >>> from keras_skim.models import StructuralJumpClozeQA
    >>> model = StructuralJumpClozeQA(30, separator_ids=[2], sentence_end_ids=[3], num_candidates=2,
    ...                               query_length=4, units=8, agent_units=4, embedding_dim=6)
    >>> ids = pack_cloze_ids([[5, 6]], [[7, 8, 3, 0]], [[5, 9, 2, 6, 3, 0]])
    >>> out = model(ids)
    >>> tuple(out["logits"].shape), tuple(out["trace"].shape), int(out["word_count"][0])
    ((1, 2), (1, 6, 14), 3)

    Reference:
        - Christian Hansen, Casper Hansen, Stephen Alstrup, Jakob Grue
          Simonsen, Christina Lioma. "Neural Speed Reading with
          Structural-Jump-LSTM". ICLR 2019. https://arxiv.org/abs/1904.00761
        - Hill, Bordes, Chopra, Weston. "The Goldilocks Principle: Reading
          Children's Books with Explicit Memory Representations". ICLR 2016.
    """

    def __init__(
        self,
        vocabulary_size: int,
        separator_ids: Sequence[int],
        sentence_end_ids: Sequence[int],
        other_punctuation_ids: Sequence[int] = (),
        num_candidates: int = 10,
        query_length: int = 64,
        train_embedding: bool = False,
        **kwargs: Any,
    ) -> None:
        for name, value, minimum in (("num_candidates", num_candidates, 2), ("query_length", query_length, 1)):
            if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
                raise ValueError(f"Argument `{name}` must be an integer >= {minimum}. Received: {name}={value!r}")
        if "num_classes" in kwargs:
            raise ValueError("StructuralJumpClozeQA has `num_candidates`, not `num_classes`")
        super().__init__(
            vocabulary_size,
            separator_ids,
            sentence_end_ids,
            other_punctuation_ids,
            num_classes=num_candidates,
            train_embedding=train_embedding,
            **kwargs,
        )
        self.num_candidates = num_candidates
        self.query_length = query_length

    def _make_head(self) -> None:
        self.answer_projection = keras.layers.Dense(self.embedding_dim, use_bias=False, name="answer_projection")

    def _build_head(self) -> None:
        self.answer_projection.build((None, self.units))

    def _parts(self, packed_ids):
        k, q = self.num_candidates, self.query_length
        return packed_ids[:, :k], packed_ids[:, k : k + q], packed_ids[:, k + q :]

    def call(self, packed_ids: Any, training: bool | None = False) -> Any:
        candidates, query, document = self._parts(packed_ids)
        _, state, _ = self.read_words(query, training=training, read_all=True)
        trace, (h, _, _), word_count = self.read_words(document, training=training, initial_state=state)
        projected = self.answer_projection(self.output_dropout_layer(h, training=training))
        logits = ops.einsum("bke,be->bk", self.embedding(candidates), projected)
        return {"logits": logits, "trace": trace, "word_count": word_count}

    def compute_output_spec(self, packed_ids: Any, training: bool | None = False) -> Any:
        batch, length = packed_ids.shape[0], packed_ids.shape[1]
        document = None if length is None else length - self.num_candidates - self.query_length
        return {
            "logits": keras.KerasTensor((batch, self.num_candidates), dtype=self.compute_dtype),
            "trace": keras.KerasTensor((batch, document, self.cell.output_size), dtype=self.compute_dtype),
            "word_count": keras.KerasTensor((batch,), dtype="int32"),
        }

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        del config["num_classes"]
        return {**config, "num_candidates": self.num_candidates, "query_length": self.query_length}
