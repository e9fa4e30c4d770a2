"""The word stream and jump offsets computed in the graph match a plain scan."""

import keras
import numpy as np
import pytest

from keras_skim.datasets.tokenizer import Tokenizer
from keras_skim.models.structural_jump.text_structure import (
    TOKENIZER_PUNCTUATION,
    TextStructure,
    punctuation_ids,
)
from tests.numpy_reference import text_structure_reference

SEP, END, OTHER = [2, 3], [4, 5, 6], [7, 8]


def _random_ids(rs, batch=12, length=25):
    # Words 1 (unknown) and 9..19; punctuation at a fifth of the positions;
    # some rows empty, punctuation only, or with padding inside.
    ids = rs.randint(9, 20, (batch, length))
    punct = rs.rand(batch, length) < 0.25
    ids[punct] = rs.choice(SEP + END + OTHER, punct.sum())
    ids[rs.rand(batch, length) < 0.05] = 1
    lengths = rs.randint(0, length + 1, batch)
    ids[np.arange(length)[None, :] >= lengths[:, None]] = 0
    ids[0] = 0
    ids[1, :6] = [4, 2, 7, 5, 0, 0]
    ids[1, 6:] = 0
    ids[2, 3] = 0  # padding inside a text is ignored
    return ids.astype("int32")


def test_matches_numpy_reference():
    rs = np.random.RandomState(0)
    ids = _random_ids(rs)
    words, offsets, positions = (np.asarray(t) for t in TextStructure(SEP, END, OTHER)(ids))
    for b in range(len(ids)):
        ref_words, ref_offsets, ref_positions = text_structure_reference(ids[b].tolist(), SEP, END, OTHER)
        n = len(ref_words)
        np.testing.assert_array_equal(words[b, :n], ref_words)
        np.testing.assert_array_equal(words[b, n:], 0)
        np.testing.assert_array_equal(offsets[b, :n], ref_offsets)
        np.testing.assert_array_equal(offsets[b, n:], 0)
        np.testing.assert_array_equal(positions[b, :n], ref_positions)
        np.testing.assert_array_equal(positions[b, n:], -1)
    assert offsets[0].max() == 0 and offsets[1].max() == 0  # empty, punctuation only


def test_a_jump_lands_on_the_first_word_after_the_separator():
    tok = Tokenizer().fit(["a b, c d. e f; g! h"])
    ids = tok.encode(["a b, c d. e f; g! h"])
    layer = TextStructure(**punctuation_ids(tok.vocabulary))
    words, offsets, positions = (np.asarray(t)[0] for t in layer(ids))
    assert tok.decode(words) == "a b c d e f g h"
    # From "a": next separator -> "c" (+2), next sentence end -> "e" (+4), end -> past "h" (+8).
    assert offsets[0].tolist() == [2, 4, 8]
    # From "c": the comma jump stops at the sentence end -> "e".
    assert offsets[2].tolist() == [2, 2, 6]
    # ";" separates but does not end the sentence; "!" does.
    assert offsets[4].tolist() == [2, 3, 4]
    assert offsets[7].tolist() == [1, 1, 1]
    assert positions[:8].tolist() == [0, 1, 3, 4, 6, 7, 9, 11]


def test_punctuation_ids_come_from_the_tokenizer_vocabulary():
    tok = Tokenizer().fit(['x, y; z. w! v? u: t (s) "r" \' q - p'])
    ids = punctuation_ids(tok.vocabulary)
    name = {i: t for i, t in enumerate(tok.vocabulary)}
    assert sorted(name[i] for i in ids["separator_ids"]) == [",", ";"]
    assert sorted(name[i] for i in ids["sentence_end_ids"]) == ["!", ".", "?"]
    assert sorted(name[i] for i in ids["other_punctuation_ids"]) == sorted("():\"'-")
    # Every punctuation character the tokenizer keeps is one token.
    for p in TOKENIZER_PUNCTUATION:
        assert Tokenizer.tokenize(f"a {p} b") == ["a", p, "b"]
    with_colon = punctuation_ids(tok.vocabulary, separators=(",", ";", ":"))
    assert tok.vocabulary.index(":") in with_colon["separator_ids"]
    assert tok.vocabulary.index(":") not in with_colon["other_punctuation_ids"]
    # Characters missing from the vocabulary are left out.
    assert punctuation_ids(["<pad>", "<unk>", "a", "."]) == {
        "separator_ids": [],
        "sentence_end_ids": [3],
        "other_punctuation_ids": [],
    }


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"separator_ids": [0], "sentence_end_ids": [3]}, "separator_ids"),
        ({"separator_ids": [2], "sentence_end_ids": [1]}, "sentence_end_ids"),
        ({"separator_ids": [2], "sentence_end_ids": [2]}, "both"),
        ({"separator_ids": "2", "sentence_end_ids": [3]}, "separator_ids"),
        ({"separator_ids": [2.5], "sentence_end_ids": [3]}, "separator_ids"),
    ],
)
def test_bad_punctuation_ids_raise_one_line_errors(kwargs, message):
    with pytest.raises(ValueError, match=message) as info:
        TextStructure(**kwargs)
    assert "\n" not in str(info.value)


def test_config_round_trip_and_symbolic_call():
    layer = TextStructure([2, 3], [4], [7])
    clone = TextStructure.from_config(layer.get_config())
    assert clone.get_config() == layer.get_config()
    inputs = keras.Input((None,), dtype="int32")
    words, offsets, positions = layer(inputs)
    assert tuple(offsets.shape) == (None, None, 3) and words.dtype == "int32"
