"""`ChunkedPasses`: a fit's epochs as fixed slices of seeded passes over the
data, so that a pass longer than a process may live is checkpointed (and
validated) several times."""

import math

import keras
import numpy as np


class ChunkedPasses(keras.utils.PyDataset):
    """Training batches in epochs of `steps` batches, cut from seeded passes over the data.

    `EpochCheckpoint` writes its checkpoint at an epoch's end, so a run
    whose epoch outlasts the process it runs in (a session's end, a
    preemption) loses the epoch. Here an epoch is `steps` batches, and a
    pass over the data spans several epochs: the `k`-th batch of the run
    is batch `k mod n` of pass `k // n` (`n` batches a pass, the last one
    short when the data does not fill it), and pass `p` visits the
    examples in the order of `numpy.random.default_rng([seed, p])`. The
    batches of an epoch depend on its index alone, so a run resumed after
    epoch `e` (`start_at(e)` before `fit(initial_epoch=e)`) takes the same
    steps as one never stopped.

    Give `fit` the dataset's `callback()` too: it sets the slice from the
    epoch index `fit` counts (from `initial_epoch` on), before the epoch's
    first batch. Use it with `fit`'s default `workers=1` (the slice is not
    shared with worker processes).

    Args:
        inputs: An array, or a dict of arrays, with the examples on axis 0.
        labels: An array of as many labels.
        batch_size: Examples per batch.
        steps: Batches per epoch.
        seed: Seed of the passes' orders.
    """

    def __init__(self, inputs, labels, batch_size, steps, seed=0):
        super().__init__()
        self.inputs = inputs
        self.labels = np.asarray(labels)
        self.batch_size = int(batch_size)
        self.steps = int(steps)
        self.seed = int(seed)
        if self.batch_size < 1 or self.steps < 1:
            raise ValueError(f"batch_size and steps must be at least 1; got {batch_size} and {steps}")
        self.examples = len(self.labels)
        self.batches_per_pass = math.ceil(self.examples / self.batch_size)
        self.epoch = 0
        self._orders = {}  # pass -> its order; Keras may fetch batches from another thread

    def epochs_for(self, passes):
        """The epochs that cover `passes` passes over the data."""
        return math.ceil(passes * self.batches_per_pass / self.steps)

    def start_at(self, epoch):
        """Makes the next epoch `fit` runs the run's epoch `epoch` (0-based)."""
        self.epoch = int(epoch)

    def __len__(self):
        return self.steps

    def __getitem__(self, index):
        rows = self.rows(self.epoch * self.steps + index)
        if isinstance(self.inputs, dict):
            return {name: values[rows] for name, values in self.inputs.items()}, self.labels[rows]
        return self.inputs[rows], self.labels[rows]

    def rows(self, step):
        """The example indices of the run's `step`-th batch (0-based)."""
        passed, batch = divmod(step, self.batches_per_pass)
        order = self._orders.get(passed)
        if order is None:  # one permutation per pass, kept while its batches are read
            order = np.random.default_rng([self.seed, passed]).permutation(self.examples)
            self._orders = {passed: order, **{p: o for p, o in self._orders.items() if p == passed - 1}}
        return order[batch * self.batch_size : (batch + 1) * self.batch_size]

    def on_epoch_end(self):
        self.epoch += 1

    def callback(self):
        """A `keras.callbacks.Callback` that keeps the slice at `fit`'s epoch index."""
        return _SliceOfEpoch(self)


class _SliceOfEpoch(keras.callbacks.Callback):
    def __init__(self, batches):
        super().__init__()
        self.batches = batches

    def on_epoch_begin(self, epoch, logs=None):
        self.batches.start_at(epoch)
