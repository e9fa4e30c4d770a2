import numpy as np
import pytest

from keras_skim.datasets import DatasetUnavailableError, Tokenizer, glove_embedding_matrix, load_glove

GLOVE_WORDS = ["the", ",", ".", "movie", "don't", "great"]  # as built by the glove_wheel fixture


def test_load_glove_from_wheel_and_cache(glove_wheel, isolated_cache):
    words, vectors = load_glove(source_path=glove_wheel)
    assert words == GLOVE_WORDS
    assert vectors.shape == (6, 50) and vectors.dtype == np.float32
    assert vectors[words.index("movie"), 0] == 4.0
    assert sorted(p.name for p in isolated_cache.rglob("*") if p.is_file()) == [
        "vectors_50d.npy",
        "vectors_50d.npy.sha256",
        "words.txt",
        "words.txt.sha256",
    ]
    again_words, again_vectors = load_glove(source_path=glove_wheel)
    assert again_words == words and np.array_equal(again_vectors, vectors)


def test_other_dims_are_unavailable():
    with pytest.raises(DatasetUnavailableError, match="100d"):
        load_glove(dim=100)


def test_embedding_matrix_rows(glove_wheel):
    tok = Tokenizer().fit(["Great movie, don't miss it"])
    vocab = tok.vocabulary
    matrix = glove_embedding_matrix(vocab, seed=5, glove=load_glove(source_path=glove_wheel))
    assert matrix.shape == (len(vocab), 50) and matrix.dtype == np.float32
    assert not matrix[0].any()
    for token, value in (("great", 6.0), ("movie", 4.0), ("don't", 5.0), (",", 2.0)):
        assert np.all(matrix[vocab.index(token)] == value)
    for token in ("<unk>", "miss", "it"):
        row = matrix[vocab.index(token)]
        assert 0 < np.abs(row).max() < 1.0  # small random normal * 0.1
    same = glove_embedding_matrix(vocab, seed=5, glove=load_glove(source_path=glove_wheel))
    assert np.array_equal(matrix, same)
