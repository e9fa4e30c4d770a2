"""Errors raised by the data layer."""

from __future__ import annotations

from collections.abc import Iterable


def _one_line(text, limit=240):
    """Squeezes a message onto one short line so that a report stays readable."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


class FetchError(RuntimeError):
    """A registry download or an archive read failed (one source, one reason)."""


class DatasetUnavailableError(RuntimeError):
    """No source could provide a dataset.

    The message is one line listing every source tried and why each failed,
    so that a user sees at once what to install or where to point
    ``KERAS_SKIM_DATA_<NAME>``.

    Attributes:
        dataset: The dataset label, e.g. ``"imdb (train)"``.
        attempts: List of ``(source, reason)`` pairs, in the order tried.
    """

    def __init__(self, dataset: str, attempts: Iterable[tuple[object, object]], hint: str | None = None) -> None:
        self.dataset = dataset
        self.attempts = [(str(source), _one_line(reason)) for source, reason in attempts]
        tried = "; ".join(f"{source}: {reason}" for source, reason in self.attempts)
        message = f"Could not load dataset {dataset}. Tried {tried or 'no source'}."
        if hint:
            message += " " + _one_line(hint, limit=400)
        super().__init__(message)


def describe_failure(err):
    """Returns ``"Type: message"`` on one line for an exception.

    Args:
        err: The exception.

    Returns:
        A short one-line reason.
    """
    text = str(err) or repr(err)
    return _one_line(f"{type(err).__name__}: {text}")


class DataSourceError(ValueError):
    """A ``--data`` argument or data file that cannot be used as given.

    The message is one line naming the file (and line, where there is one)
    and what was expected, so that the CLI can print it as is and exit 2.
    """


class CacheError(DataSourceError):
    """The cache folder cannot be created or written (``KERAS_SKIM_CACHE``
    naming a file, a parent that cannot be made, a full disk); one line."""
