"""Bounded reads and typed checks of the three JSON contracts
(`metadata.json`, `train_config.json`, `tokenizer.json`); no TensorFlow.

Each file is read with a size limit (an endless stream such as /dev/zero is
refused after `MAX_JSON_BYTES`), parsed with a nesting limit (no
RecursionError), and every field a reader uses is checked for its type and
range before anything else sees it. A violation raises `FieldError` (a
ValueError) whose one line names the file and the key:

    metadata.json: "max_length" must be an integer from 1 to 65536 or null; got "abc"

Keys this version does not know are left alone (newer writers may add some).
"""

import json
import math
import os
import stat

MAX_JSON_BYTES = 64 << 20  # a 2-million-token vocabulary is about 40 MB
MAX_JSON_DEPTH = 64  # the contracts nest 4 levels deep
MAX_SEQUENCE_LENGTH = 1 << 16  # tokens per text; the longest paper setting is 400
MAX_VOCABULARY_SIZE = 1 << 24
MAX_UNITS = 1 << 16
MAX_CLASSES = 1 << 16


class FieldError(ValueError):
    """A contract file with a value of the wrong type or range; one line."""


def file_kind(mode):
    """What a non-regular file is, from its `st_mode`, for messages."""
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


class NotRegularFile(ValueError):
    """A path that is a folder, FIFO, device or socket where a file was expected."""


def read_limited(path, limit=MAX_JSON_BYTES):
    """The bytes of a regular file, at most `limit`.

    The file is opened without blocking (a FIFO with no writer would
    otherwise hang `open`) and checked to be a regular file before anything
    is read, so a FIFO, a device such as /dev/zero or a folder is refused
    at once.

    Raises:
        OSError: As `os.open` raises it (missing file, no permission).
        NotRegularFile: Not a regular file (message without the file name).
        ValueError: Larger than `limit` (message without the file name).
    """
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(f"is {file_kind(info.st_mode)}, not a regular file")
        if info.st_size > limit:
            raise ValueError(f"larger than {limit} bytes ({info.st_size})")
        chunks, size = [], 0
        while size <= limit:  # a file that grows while read is still capped
            chunk = os.read(descriptor, min(limit + 1 - size, 1 << 24))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(descriptor)
    if size > limit:
        raise ValueError(f"larger than {limit} bytes (it grew while read)")
    return b"".join(chunks)


def parse_json(data):
    """Parses UTF-8 JSON bytes (or a str); ValueError (one line) for bad
    text or for nesting deeper than `MAX_JSON_DEPTH`."""
    try:
        value = json.loads(data.decode("utf-8") if isinstance(data, bytes) else data)
    except RecursionError:
        raise ValueError(f"nested deeper than {MAX_JSON_DEPTH} levels") from None
    except (UnicodeDecodeError, ValueError) as err:
        raise ValueError(" ".join(str(err).split())[:120]) from None
    if json_depth(value) > MAX_JSON_DEPTH:
        raise ValueError(f"nested deeper than {MAX_JSON_DEPTH} levels")
    return value


def json_depth(value):
    """Nesting depth of parsed JSON, without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, depth)
            if depth <= MAX_JSON_DEPTH:
                stack.extend((child, depth + 1) for child in item)
    return deepest


# ------------------------------------------------------------------ checkers
# A checker takes a value and returns None when it is fine, else what was
# expected (the message's "must be ..." part).
def integer(minimum, maximum, nullable=False):
    def check(value):
        ok = isinstance(value, int) and not isinstance(value, bool) and minimum <= value <= maximum
        if ok or (nullable and value is None):
            return None
        return f"an integer from {minimum} to {maximum}" + (" or null" if nullable else "")

    return check


def number(minimum=0.0, nullable=False):
    def check(value):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if ok and math.isfinite(value) and value >= minimum:
            return None
        if nullable and value is None:
            return None
        return f"a finite number >= {minimum:g}" + (" or null" if nullable else "")

    return check


def text(nullable=False, choices=None):
    def check(value):
        if (nullable and value is None) or (isinstance(value, str) and (choices is None or value in choices)):
            return None
        wanted = f"one of {', '.join(map(repr, choices))}" if choices else "a string"
        return wanted + (" or null" if nullable else "")

    return check


def boolean(value):
    return None if isinstance(value, bool) else "true or false"


def mapping(nullable=False):
    def check(value):
        if isinstance(value, dict) or (nullable and value is None):
            return None
        return "an object" + (" or null" if nullable else "")

    return check


def list_of(item, nullable=False, max_items=MAX_VOCABULARY_SIZE):
    def check(value):
        if nullable and value is None:
            return None
        wanted = "a list" + (" or null" if nullable else "")
        if not isinstance(value, list) or len(value) > max_items:
            return wanted
        for element in value:
            problem = item(element)
            if problem:
                return f"{wanted} of {problem}s"
        return None

    return check


def field_problem(record, fields, prefix=""):
    """The one-line problem of the first bad field of `record` ({key:
    (checker, required)}), naming the key; None when every field is fine."""
    for key, (check, required) in fields.items():
        if key not in record:
            if required:
                return f"{prefix}{json.dumps(key)} is missing"
            continue
        problem = check(record[key])
        if problem:
            return f"{prefix}{json.dumps(key)} must be {problem}; got {_shown(record[key])}"
    return None


def check_fields(path, record, fields, prefix=""):
    """`field_problem` as a FieldError that names the file too."""
    problem = field_problem(record, fields, prefix)
    if problem:
        raise FieldError(f"{path}: {problem}")


def _shown(value):
    try:
        shown = json.dumps(value, allow_nan=True)
    except (TypeError, ValueError):  # pragma: no cover - parsed JSON always dumps
        shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


# ------------------------------------------------------------- the contracts
# `metadata.json`: the fields of `keras_skim.metadata_record.ExportMetadata`
# carry their checkers.
TRAIN_ARGUMENT_FIELDS = {
    "dataset": (text(nullable=True), False),
    "max_length": (integer(1, MAX_SEQUENCE_LENGTH, nullable=True), False),
    "max_tokens": (integer(2, MAX_VOCABULARY_SIZE, nullable=True), False),
    "units": (integer(1, MAX_UNITS, nullable=True), False),
    "small_units": (integer(0, MAX_UNITS, nullable=True), False),
    "seed": (integer(0, (1 << 32) - 1, nullable=True), False),
    "split_seed": (integer(0, (1 << 32) - 1, nullable=True), False),
    "threshold": (number(nullable=True), False),
}
TRAIN_DATA_FIELDS = {
    "source": (text(nullable=True), False),
    "path": (text(nullable=True), False),
    "format": (text(nullable=True), False),
    "classes": (list_of(text(), max_items=MAX_CLASSES), False),
    "split": (mapping(nullable=True), False),
    "sha256": (text(nullable=True), False),
}


def check_train_config(path, record):
    """The fields of `train_config.json` that evaluate, show and export read."""
    check_fields(path, record, {"arguments": (mapping(), True), "data": (mapping(nullable=True), False)})
    check_fields(path, record["arguments"], TRAIN_ARGUMENT_FIELDS, prefix='"arguments".')
    data = record.get("data")
    if data is not None:
        check_fields(path, data, TRAIN_DATA_FIELDS, prefix='"data".')
        split = data.get("split")
        if split is not None:
            check_fields(path, split, {"seed": (integer(0, (1 << 32) - 1, nullable=True), False)}, '"data"."split".')
    return record


TOKENIZER_FIELDS = {
    "max_length": (integer(1, MAX_SEQUENCE_LENGTH, nullable=True), False),
    "vocabulary": (list_of(text()), True),
}
