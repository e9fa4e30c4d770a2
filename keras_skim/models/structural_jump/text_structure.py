"""The word stream and the jump offsets of Structural-Jump-LSTM, computed
inside the model from the same raw token ids that the other models take.

Structural-Jump-LSTM (Hansen et al., ICLR 2019) never reads punctuation:
punctuation only says where a jump lands. From raw ids (punctuation tokens
included, 0 = padding) this module computes, for every document:

- the word stream: the ids that are not padding and not punctuation, moved
  to the left in their order, and the raw position of each word;
- three offsets per word i of a document of n words, the step from word i
  to the first word after the next sub-sentence separator, the next
  sentence end, and the end of the text:
  ``off_sub[i] = j - i + 1`` with j the first word >= i that is followed by
  a separator or a sentence end (or is the last word), ``off_sent[i]`` the
  same with sentence ends only, and ``off_end[i] = n - i``. Padding gets 0.

These are the authors' code's ``comma`` / ``newsent`` arrays
(``datasetMaker.processTexts``), with the paper's separators ``, ;`` and
sentence ends ``. ! ?`` instead of spaCy's sentence parser. Only
`keras.ops` with TFLite builtins are used (equality, cumsum, scatter,
gather), so every backend runs it and an exporter can compute the same in
its graph.
"""

from collections.abc import Sequence
from typing import Any

import keras
from keras import ops

# Punctuation characters that `keras_skim.datasets.Tokenizer` keeps as tokens.
TOKENIZER_PUNCTUATION = (".", ",", ";", ":", "!", "?", "(", ")", '"', "'", "-")
SEPARATORS = (",", ";")
SENTENCE_ENDS = (".", "!", "?")
NUM_OFFSETS = 3  # next separator, next sentence end, end of text
_RESERVED_IDS = 2  # 0 = padding and 1 = unknown word are never punctuation


def punctuation_ids(vocabulary, separators=SEPARATORS, sentence_ends=SENTENCE_ENDS):
    """Finds the ids of the punctuation tokens in a tokenizer's vocabulary.

    Every tokenizer punctuation character that is neither a separator nor
    a sentence end is returned in `other_punctuation_ids`: it is dropped
    from the word stream and steers nothing. A character missing from the
    vocabulary is left out (its occurrences read as the unknown word).

    Args:
        vocabulary: list of tokens, index = id (`Tokenizer.vocabulary`).
        separators: sub-sentence separators. Defaults to `, ;` (the paper);
            add `":"` to make colons separators too.
        sentence_ends: sentence ends. Defaults to `. ! ?`.

    Returns:
        dict with `separator_ids`, `sentence_end_ids` and
        `other_punctuation_ids`, each a sorted list of ints: the keyword
        arguments of `TextStructure` and of `StructuralJumpLSTM`.
    """
    overlap = set(separators) & set(sentence_ends)
    if overlap:
        raise ValueError(f"A token cannot be both a separator and a sentence end: {sorted(overlap)}")
    index = {token: i for i, token in enumerate(vocabulary)}

    def ids(tokens):
        return sorted(index[t] for t in tokens if index.get(t, 0) >= _RESERVED_IDS)

    others = [p for p in TOKENIZER_PUNCTUATION if p not in separators and p not in sentence_ends]
    return {
        "separator_ids": ids(separators),
        "sentence_end_ids": ids(sentence_ends),
        "other_punctuation_ids": ids(others),
    }


def check_punctuation_ids(separator_ids, sentence_end_ids, other_punctuation_ids):
    """Validates the three id lists; returns them as lists of ints."""
    lists = {
        "separator_ids": separator_ids,
        "sentence_end_ids": sentence_end_ids,
        "other_punctuation_ids": other_punctuation_ids,
    }
    checked = {}
    for name, values in lists.items():
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise ValueError(f"Argument `{name}` must be a list of token ids. Received: {values!r}")
        values = list(values)
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int) or v < _RESERVED_IDS:
                raise ValueError(
                    f"Argument `{name}` must hold token ids >= {_RESERVED_IDS} (0 is padding, "
                    f"1 the unknown word). Received: {values!r}"
                )
        checked[name] = [int(v) for v in values]
    seen = {}
    for name, values in checked.items():
        for v in values:
            if v in seen:
                raise ValueError(f"Token id {v} is in both `{seen[v]}` and `{name}`; each punctuation id has one role.")
            seen[v] = name
    return checked["separator_ids"], checked["sentence_end_ids"], checked["other_punctuation_ids"]


def _is_in(ids, values):
    if not values:
        return ops.zeros_like(ids, dtype="bool")
    return ops.any(ops.equal(ids[..., None], ops.convert_to_tensor(values, "int32")), axis=-1)


def _compact(values, slot, length):
    """Row-wise scatter: out[b, slot[b, t]] = values[b, t]; slot == length
    is a discard column. Slots other than the discard one must be unique
    within a row."""
    batch = ops.shape(values)[0]
    rows = ops.broadcast_to(ops.arange(batch, dtype="int32")[:, None], ops.shape(slot))
    indices = ops.stack([rows, slot], axis=-1)
    out = ops.scatter(indices, values, (batch, length + 1))
    return out[:, :length]


def _exclusive_cumsum(x):
    return ops.cumsum(x, axis=1) - x


def _offset_to_next_flag(flag, in_text, length):
    """For each word k: (first flagged word >= k) - k + 1; 0 outside the text."""
    f = ops.cast(flag, "int32")
    before = _exclusive_cumsum(f)
    k = ops.broadcast_to(ops.arange(length, dtype="int32")[None, :], ops.shape(f))
    # The flagged positions in order: flag_pos[b, r] = position of flag r.
    flag_pos = _compact(k + 1, ops.where(flag, before, length), length) - 1
    nxt = ops.take_along_axis(flag_pos, ops.minimum(before, length - 1), axis=1)
    return ops.where(in_text, nxt - k + 1, 0)


def text_structure(token_ids, separator_ids, sentence_end_ids, other_punctuation_ids):
    """Word stream, jump offsets and word positions of a batch of raw ids.

    Args:
        token_ids: int tensor `(batch, T)`, raw ids with punctuation, 0 =
            padding (padding may appear anywhere; it is ignored).
        separator_ids, sentence_end_ids, other_punctuation_ids: lists of
            ids (see `punctuation_ids`).

    Returns:
        `(words, offsets, positions)`: int32 tensors `(batch, T)`,
        `(batch, T, 3)` and `(batch, T)`. `words[b, :n_b]` are the word ids
        of document b in order, then 0; `offsets[b, i]` are `off_sub`,
        `off_sent`, `off_end` of word i (all 0 for i >= n_b);
        `positions[b, i]` is the raw index of word i in `token_ids[b]`
        (-1 for i >= n_b). The word count is `offsets[..., 2]` at i = 0.
    """
    ids = ops.cast(token_ids, "int32")
    length = ops.shape(ids)[1]
    is_sep = _is_in(ids, separator_ids)
    is_end = _is_in(ids, sentence_end_ids)
    is_punctuation = ops.logical_or(ops.logical_or(is_sep, is_end), _is_in(ids, other_punctuation_ids))
    is_word = ops.logical_and(ops.not_equal(ids, 0), ops.logical_not(is_punctuation))
    rank = ops.cumsum(ops.cast(is_word, "int32"), axis=1)  # words up to and including t
    count = rank[:, -1:]
    raw_pos = ops.broadcast_to(ops.arange(length, dtype="int32")[None, :], ops.shape(ids))
    word_slot = ops.where(is_word, rank - 1, length)
    words = _compact(ids, word_slot, length)
    positions = _compact(raw_pos + 1, word_slot, length) - 1
    # A punctuation token after word j (and before word j + 1) ends j's
    # sub-sentence or sentence; punctuation before the first word ends nothing.
    gap_slot = ops.where(ops.logical_and(ops.logical_not(is_word), rank > 0), rank - 1, length)
    sub_breaks = _compact(ops.cast(ops.logical_or(is_sep, is_end), "int32"), gap_slot, length) > 0
    end_breaks = _compact(ops.cast(is_end, "int32"), gap_slot, length) > 0
    k = raw_pos
    in_text = k < count
    last = ops.equal(k, count - 1)
    off_sub = _offset_to_next_flag(ops.logical_or(sub_breaks, last), in_text, length)
    off_sent = _offset_to_next_flag(ops.logical_or(end_breaks, last), in_text, length)
    off_end = ops.where(in_text, count - k, 0)
    offsets = ops.stack([off_sub, off_sent, off_end], axis=-1)
    return words, offsets, positions


@keras.saving.register_keras_serializable(package="keras_skim")
class TextStructure(keras.layers.Layer):
    """Splits raw token ids into the word stream and the jump offsets.

    The first layer of `StructuralJumpLSTM`: punctuation ids leave the word
    stream (they are never read) and set where the jumps land. See the
    module docstring for the exact definitions.

    Args:
        separator_ids: ids of the sub-sentence separators (`, ;`).
        sentence_end_ids: ids of the sentence ends (`. ! ?`).
        other_punctuation_ids: ids of the other punctuation tokens, dropped
            from the word stream. Build all three from a tokenizer with
            `punctuation_ids(tokenizer.vocabulary)`.
        **kwargs: base layer keyword arguments.

    Call arguments:
        token_ids: int tensor `(batch, T)`, 0 = padding.

    Returns:
        `(words, offsets, positions)`, int32 `(batch, T)`, `(batch, T, 3)`,
        `(batch, T)` (see `text_structure`).

    Example:

    >>> import numpy as np
    >>> from keras_skim.models.structural_jump.text_structure import TextStructure
    >>> layer = TextStructure([4], [5], [])   # 4 = ",", 5 = "."
    >>> words, offsets, positions = layer(np.array([[7, 8, 4, 9, 5, 6, 0]]))
    >>> np.asarray(words)[0, :4].tolist(), np.asarray(offsets)[0, 0].tolist()
    ([7, 8, 9, 6], [2, 3, 4])

    Reference:
        Christian Hansen, Casper Hansen, Stephen Alstrup, Jakob Grue
        Simonsen, Christina Lioma. "Neural Speed Reading with
        Structural-Jump-LSTM". ICLR 2019. https://arxiv.org/abs/1904.00761
    """

    def __init__(
        self,
        separator_ids: Sequence[int],
        sentence_end_ids: Sequence[int],
        other_punctuation_ids: Sequence[int] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        (
            self.separator_ids,
            self.sentence_end_ids,
            self.other_punctuation_ids,
        ) = check_punctuation_ids(separator_ids, sentence_end_ids, other_punctuation_ids)
        self.built = True

    def call(self, token_ids: Any) -> Any:
        return text_structure(token_ids, self.separator_ids, self.sentence_end_ids, self.other_punctuation_ids)

    def compute_output_spec(self, token_ids: Any) -> Any:
        shape = tuple(token_ids.shape)
        return (
            keras.KerasTensor(shape, dtype="int32"),
            keras.KerasTensor(shape + (NUM_OFFSETS,), dtype="int32"),
            keras.KerasTensor(shape, dtype="int32"),
        )

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "separator_ids": list(self.separator_ids),
            "sentence_end_ids": list(self.sentence_end_ids),
            "other_punctuation_ids": list(self.other_punctuation_ids),
        }
