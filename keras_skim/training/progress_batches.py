"""Batches of a long array with a progress bar: what evaluating a model on a
data set shows while it runs (the skim statistics and the text classifier's
evaluation share it)."""

import sys


def in_batches(values, batch_size, progress=None, description=None):
    """Yields `values` in slices of `batch_size`, with a tqdm progress bar
    on stderr when `progress` (None: when stderr is a terminal)."""
    import tqdm

    starts = range(0, len(values), batch_size)
    show = sys.stderr.isatty() if progress is None else bool(progress)
    # One redraw per batch (cheap at batch granularity; tqdm would otherwise skip
    # redraws by time and count), so the finished count is always drawn before
    # the bar is cleared.
    bar = tqdm.tqdm(
        total=len(values),
        desc=description,
        unit="text",
        disable=not show,
        file=sys.stderr,
        leave=False,
        mininterval=0,
        miniters=1,
    )
    with bar:
        for start in starts:
            batch = values[start : start + batch_size]
            yield batch
            bar.update(len(batch))
