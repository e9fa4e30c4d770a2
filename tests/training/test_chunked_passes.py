"""`ChunkedPasses`: epochs as slices of seeded passes, the same batches whichever epoch a fit starts from."""

import numpy as np
import pytest

keras = pytest.importorskip("keras")

from keras_skim.training.chunked_passes import ChunkedPasses  # noqa: E402


def _data(n=10):
    return {"a": np.arange(n) * 10, "b": np.arange(n)[:, None]}, np.arange(n)


def test_each_pass_visits_every_example_once_in_its_own_order():
    inputs, labels = _data(10)
    batches = ChunkedPasses(inputs, labels, batch_size=4, steps=2, seed=3)
    assert batches.batches_per_pass == 3 and len(batches) == 2
    passes = [np.concatenate([batches.rows(p * 3 + b) for b in range(3)]) for p in range(3)]
    for order in passes:
        assert sorted(order.tolist()) == list(range(10))
    assert [len(batches.rows(s)) for s in range(3)] == [4, 4, 2]  # the last batch of a pass is short
    assert passes[0].tolist() != passes[1].tolist()
    assert ChunkedPasses(inputs, labels, 4, 2, seed=3).rows(4).tolist() == batches.rows(4).tolist()
    assert ChunkedPasses(inputs, labels, 4, 2, seed=4).rows(0).tolist() != batches.rows(0).tolist()
    assert batches.epochs_for(3) == 5 and batches.epochs_for(2) == 3  # 9 and 6 batches in slices of 2


def test_an_epoch_is_its_slice_of_the_run_whatever_came_before():
    inputs, labels = _data(10)
    batches = ChunkedPasses(inputs, labels, batch_size=4, steps=2, seed=0)
    batches.start_at(2)
    (x, y) = batches[1]  # the run's batch 5: pass 1, its last (short) batch
    rows = batches.rows(5)
    assert y.tolist() == rows.tolist() and x["a"].tolist() == (rows * 10).tolist() and x["b"].shape == (2, 1)
    batches.on_epoch_end()
    assert batches.epoch == 3


def test_fit_from_an_initial_epoch_reads_that_epochs_batches():
    """The callback sets the slice from fit's epoch index, so a resumed fit (initial_epoch=2) trains on the
    batches an unbroken fit trains on in its epochs 2 and 3."""
    seen = []

    class Recorded(ChunkedPasses):
        def __getitem__(self, index):
            seen.append((self.epoch, index))
            return super().__getitem__(index)

    x = np.arange(10, dtype="float32")[:, None]
    batches = Recorded(x, x[:, 0], batch_size=4, steps=2, seed=0)
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(batches, epochs=4, initial_epoch=2, callbacks=[batches.callback()], verbose=0)
    trained = sorted({pair for pair in seen if pair[0] >= 2})
    assert trained == [(2, 0), (2, 1), (3, 0), (3, 1)]


def test_bad_sizes_are_refused():
    inputs, labels = _data(4)
    with pytest.raises(ValueError, match="at least 1"):
        ChunkedPasses(inputs, labels, batch_size=0, steps=2)
