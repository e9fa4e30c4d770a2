"""`LengthBucketedBatches`: batches of documents of similar length (the jump
model's epoch and step loops both feed on it)."""

import keras
import numpy as np


class LengthBucketedBatches(keras.utils.PyDataset):
    """Batches of documents of similar length, in a new order every epoch.

    The model runs its RNN only over the longest word stream of a batch,
    so grouping documents by length saves most of the padding steps on
    corpora of mixed lengths (IMDB). Each epoch: shuffle, cut into pools of
    `pool_batches` batches, sort each pool by length, cut into batches,
    shuffle the batches. With `shuffle=False` the batches are in length
    order (for evaluation).
    """

    def __init__(self, token_ids, labels, batch_size, shuffle=True, seed=0, pool_batches=50):
        super().__init__()
        self.token_ids = np.asarray(token_ids, np.int32)
        self.labels = np.asarray(labels).reshape(-1).astype(np.int32)
        if len(self.token_ids) != len(self.labels):
            raise ValueError(f"{len(self.token_ids)} documents but {len(self.labels)} labels")
        self.batch_size = int(batch_size)
        self.shuffle = shuffle
        self.pool_batches = pool_batches
        self.lengths = (self.token_ids != 0).sum(axis=1)
        self.rng = np.random.default_rng(seed)
        self._batches = self._make_batches()

    def _make_batches(self):
        n = len(self.labels)
        if not self.shuffle:
            order = np.argsort(self.lengths, kind="stable")
            return [order[i : i + self.batch_size] for i in range(0, n, self.batch_size)]
        order = self.rng.permutation(n)
        pool = self.batch_size * self.pool_batches
        batches = []
        for start in range(0, n, pool):
            chunk = order[start : start + pool]
            chunk = chunk[np.argsort(self.lengths[chunk], kind="stable")]
            batches += [chunk[i : i + self.batch_size] for i in range(0, len(chunk), self.batch_size)]
        self.rng.shuffle(batches)
        return batches

    def __len__(self):
        return len(self._batches)

    def __getitem__(self, index):
        rows = self._batches[index]
        return self.token_ids[rows], self.labels[rows]

    def on_epoch_end(self):
        if self.shuffle:
            self._batches = self._make_batches()
