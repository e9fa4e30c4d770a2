"""Turns the labels of a data file into class ids and a class-name list.

A file's labels are either all integers or all names:

- integers (``3``, ``"3"``, ``"+3"``, ``3.0``): the classes are the distinct
  values sorted numerically, written as strings (``["0", "1", "2"]``);
- names (any other non-empty string): the classes are the distinct names
  sorted as strings.

The class id of a row is the position of its label in that list, so labels
``0, 1`` keep their ids and names get the order
``keras.utils.text_dataset_from_directory`` gives class folders. A model's
recorded class list can be given instead, so that another file is read with
the ids the model was trained with; a list of names (no integers) also
takes integer labels as class ids.
"""

import math
import re

import numpy as np

from keras_skim.datasets.errors import DataSourceError

INTEGERS = "integers"
NAMES = "names"
_A = {INTEGERS: "an integer", NAMES: "a name"}

_INTEGER = re.compile(r"[+-]?\d+")
_MAX_DIGITS = 4000
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _classify(value):
    """(kind, normalised value) of one label, kind None when unusable."""
    if isinstance(value, bool):
        return None, value
    if isinstance(value, int):
        return INTEGERS, value
    if isinstance(value, float):
        if math.isfinite(value) and value == int(value):
            return INTEGERS, int(value)
        return None, value
    if isinstance(value, str):
        text = value.strip()
        if _INTEGER.fullmatch(text):
            # Python refuses to convert integers of more than 4300 digits.
            return (INTEGERS, int(text)) if len(text) <= _MAX_DIGITS else (None, value)
        if _NUMBER.fullmatch(text):
            number = float(text)  # "1e400" is inf: no class id
            return (INTEGERS, int(number)) if math.isfinite(number) and number == int(number) else (None, value)
        return (NAMES, text) if text else (None, value)
    return None, value


def _shown(value):
    """A label as a message shows it: its repr, cut to 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def encode_labels(values, where, classes=None):
    """Class ids of raw labels.

    Args:
        values: Raw labels, one per row (strings from a CSV, JSON values).
        where: One ``callable(row) -> str`` naming a row's place for
            messages, e.g. ``"data.csv line 7"``.
        classes: A recorded class list (strings) to map onto instead of the
            file's own; None derives it from ``values``.

    Returns:
        ``(ids, classes, kind)``: int32 array, list of class names (str),
        and ``"integers"`` or ``"names"``.

    Raises:
        DataSourceError: A label that is neither an integer nor a name,
            integers mixed with names, or a label outside ``classes``.
    """
    kinds, normalised = [], []
    first = {}
    for row, value in enumerate(values):
        kind, norm = _classify(value)
        if kind is None:
            raise DataSourceError(
                f"{where(row)}: label {_shown(value)} is neither an integer nor a class name; "
                "expected every label to be an integer or every label a name"
            )
        first.setdefault(kind, row)
        kinds.append(kind)
        normalised.append(norm)
    if len(first) > 1:
        early, late = sorted(first.values())
        raise DataSourceError(
            f"{where(late)}: label {_shown(values[late])} is {_A[kinds[late]]} but {where(early)} has "
            f"{_A[kinds[early]]} ({_shown(values[early])}); expected every label to be an integer or "
            "every label a name"
        )
    kind = next(iter(first), NAMES)
    if classes is None:
        distinct = sorted(set(normalised))
        classes = [str(value) for value in distinct]
    classes = [str(name) for name in classes]
    position = {name: i for i, name in enumerate(classes)}
    # A class list of names (a registry dataset's "negative", "positive")
    # also takes integer labels as class ids.
    ids_allowed = kind == INTEGERS and not any(_INTEGER.fullmatch(name) for name in classes)
    ids = np.empty(len(normalised), dtype=np.int32)
    for row, value in enumerate(normalised):
        found = position.get(str(value))
        if found is None and ids_allowed and 0 <= value < len(classes):
            found = value
        if found is None:
            shown = ", ".join(classes[:10]) + (", ..." if len(classes) > 10 else "")
            raise DataSourceError(
                f"{where(row)}: label {_shown(values[row])} is not one of the model's classes ({shown})"
            )
        ids[row] = found
    return ids, classes, kind
