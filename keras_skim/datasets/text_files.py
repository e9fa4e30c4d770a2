"""Reads the user's own labelled texts: CSV, TSV, JSON lines, plain lines,
or a folder with one sub-folder of ``.txt`` files per class.

Every reader returns a ``TextTable``: the texts, their raw labels (None for
unlabelled data), an optional per-row split name, and where each row came
from, for messages. Nothing here imports TensorFlow. Every problem is a
one-line ``DataSourceError`` naming the file (and line) and what was
expected.
"""

import contextlib
import csv
import dataclasses
import hashlib
import io
import json
import os
import stat

from keras_skim import contract_fields
from keras_skim.datasets.errors import DataSourceError

TEXT = "text"
LABEL = "label"
SPLIT = "split"
GIVEN_SPLITS = ("train", "validation", "test")
FILE_FORMATS = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".txt": "lines"}
FOLDER = "folder"
_EXPECTED_TABLE = "expected a header row naming a text and a label column, then one row per example"
_EXPECTED_JSONL = 'expected one JSON object per line with "text" and "label" keys'
_EXPECTED_FOLDER = "expected one sub-folder of .txt files per class, at least two"
# The most bytes one data file, or all the files of a folder data set
# together, may hold: IMDB's 50,000 reviews are about 130 MB. Reading is
# capped so that an endless or sparse file is refused, not read whole.
MAX_FILE_BYTES = 1 << 30


@dataclasses.dataclass
class TextTable:
    """Rows read from one file or folder.

    Attributes:
        path: The file or folder, as given.
        format: ``"csv"``, ``"tsv"``, ``"jsonl"``, ``"lines"`` or ``"folder"``.
        texts: List of str.
        labels: Raw labels (str or JSON values), or None when unlabelled.
        splits: Per-row split names from a ``split`` column or a
            ``train/``/``test/`` folder layout, or None.
        places: Per-row ``"file line N"`` (or file path) for messages.
        sha256: Digest of the bytes read (for a folder: of its files' names
            and digests), so a recorded split can tell the data changed.
        label_names: For a folder, the class sub-folder names (sorted).
        dropped_empty: Rows left out because their text was blank.
    """

    path: str
    format: str
    texts: list
    labels: list = None
    splits: list = None
    places: list = None
    sha256: str = ""
    label_names: list = None
    dropped_empty: int = 0

    def where(self, row):
        return self.places[row]


@contextlib.contextmanager
def _unlimited_csv_fields():
    """Lifts the csv module's 128 KB field limit while reading one file.

    The limit is process-wide state, so it is restored afterwards; the
    largest accepted value is platform dependent (a C long).
    """
    previous = csv.field_size_limit()
    limit = 2**63 - 1
    while True:
        try:
            csv.field_size_limit(limit)
            break
        except OverflowError:
            limit //= 2
    try:
        yield
    finally:
        csv.field_size_limit(previous)


def decode_utf8(data, path):
    """Decodes file bytes, naming the first line that is not UTF-8.

    Args:
        data: The bytes.
        path: File name for the message.

    Returns:
        The text (a leading byte-order mark dropped).

    Raises:
        DataSourceError: Bytes that are not UTF-8.
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise DataSourceError(
            f"{path} line {line}: not UTF-8 (byte 0x{data[err.start]:02x} at column {column}); "
            "expected a UTF-8 text file"
        ) from None


def _read_bytes(path, limit=None):
    """The bytes of a regular data file, at most `limit` (default
    `MAX_FILE_BYTES`): a FIFO, a device or a huge sparse file is one line,
    not a hang or a MemoryError."""
    try:
        return contract_fields.read_limited(path, MAX_FILE_BYTES if limit is None else limit)
    except OSError as err:
        raise DataSourceError(f"{path}: cannot read ({err.strerror or err})") from None
    except contract_fields.NotRegularFile as err:
        raise DataSourceError(f"{path}: {err}; expected a text data file") from None
    except ValueError as err:
        raise DataSourceError(f"{path}: {err}; expected a smaller data file") from None


def read_table(path, delimiter):
    """Reads a CSV (``","``) or TSV (``"\\t"``) file with a header row.

    Columns are found by name, case-insensitively: ``text`` (required),
    ``label`` (required for training and evaluation) and ``split``
    (optional: ``train``, ``validation`` or ``test``). Fields may be any
    length. Blank lines are skipped.
    """
    data = _read_bytes(path)
    sha = hashlib.sha256(data).hexdigest()
    text = decode_utf8(data, path)
    if not text.strip():
        raise DataSourceError(f"{path}: empty file; {_EXPECTED_TABLE}")
    kind = "tsv" if delimiter == "\t" else "csv"
    rows, places = [], []
    with _unlimited_csv_fields():
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
        start = 1
        try:
            for row in reader:
                if any(field.strip() for field in row):
                    rows.append(row)
                    places.append(f"{path} line {start}")
                start = reader.line_num + 1
        except csv.Error as err:
            raise DataSourceError(f"{path} line {start}: not valid {kind.upper()} ({err})") from None
    header = [name.strip().lower() for name in rows[0]]
    if TEXT not in header:
        found = ", ".join(repr(name[:40]) for name in rows[0][:8]) or "nothing"
        raise DataSourceError(f"{path}: no 'text' column in the header row (found {found}); {_EXPECTED_TABLE}")
    columns = {name: header.index(name) for name in (TEXT, LABEL, SPLIT) if name in header}
    rows, places = rows[1:], places[1:]
    if not rows:
        raise DataSourceError(f"{path}: no rows after the header; {_EXPECTED_TABLE}")
    table = TextTable(path, kind, [], sha256=sha, places=[])
    table.labels = [] if LABEL in columns else None
    table.splits = [] if SPLIT in columns else None
    width = max(columns.values()) + 1
    for row, place in zip(rows, places):
        if len(row) < width:
            raise DataSourceError(
                f"{place}: {len(row)} field(s), expected at least {width} (header: {', '.join(header)})"
            )
        _append(
            table,
            row[columns[TEXT]],
            place,
            row[columns[LABEL]] if LABEL in columns else None,
            row[columns[SPLIT]] if SPLIT in columns else None,
        )
    return _finished(table)


def read_jsonl(path):
    """Reads JSON lines: one object per line with ``text`` and ``label``
    (and optionally ``split``) keys; blank lines are skipped."""
    data = _read_bytes(path)
    sha = hashlib.sha256(data).hexdigest()
    text = decode_utf8(data, path)
    if not text.strip():
        raise DataSourceError(f"{path}: empty file; {_EXPECTED_JSONL}")
    table = TextTable(path, "jsonl", [], places=[], sha256=sha)
    has_label = has_split = None
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        place = f"{path} line {number}"
        try:
            record = json.loads(line)
        except RecursionError:  # the C parser's depth limit, reached before any stack overflow
            raise DataSourceError(f"{place}: JSON nested too deeply; {_EXPECTED_JSONL}") from None
        except ValueError as err:
            raise DataSourceError(f"{place}: not JSON ({err.msg}); {_EXPECTED_JSONL}") from None
        if contract_fields.json_depth(record) > contract_fields.MAX_JSON_DEPTH:
            raise DataSourceError(f"{place}: JSON nested too deeply; {_EXPECTED_JSONL}")
        if not isinstance(record, dict):
            raise DataSourceError(f"{place}: a JSON {type(record).__name__}, not an object; {_EXPECTED_JSONL}")
        if TEXT not in record or not isinstance(record[TEXT], str):
            raise DataSourceError(f'{place}: no "text" string; {_EXPECTED_JSONL}')
        if has_label is None:
            has_label, has_split = LABEL in record, SPLIT in record
            table.labels = [] if has_label else None
            table.splits = [] if has_split else None
        for key, present in ((LABEL, has_label), (SPLIT, has_split)):
            if (key in record) != present:
                raise DataSourceError(
                    f'{place}: {"has" if key in record else "lacks"} a "{key}" key, unlike the first '
                    f"line; {_EXPECTED_JSONL}"
                )
        _append(table, record[TEXT], place, record.get(LABEL), record.get(SPLIT))
    return _finished(table)


def read_lines(path):
    """Reads a plain text file as one unlabelled text per non-blank line."""
    data = _read_bytes(path)
    sha = hashlib.sha256(data).hexdigest()
    text = decode_utf8(data, path)
    table = TextTable(path, "lines", [], places=[], sha256=sha)
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            table.texts.append(line.rstrip("\r"))
            table.places.append(f"{path} line {number}")
    if not table.texts:
        raise DataSourceError(f"{path}: empty file; expected one text per line")
    return table


def _class_folders(folder):
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError as err:
        raise DataSourceError(f"{folder}: cannot read ({err.strerror or err})") from None
    return [entry.name for entry in entries if entry.is_dir() and not entry.name.startswith(".")]


def _inside(real, top):
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def _txt_files(folder, top, walked):
    """The ``.txt`` files under ``folder``, searched recursively in the order
    ``os.walk`` gives (a folder's files, then its sorted sub-folders).

    Links to folders are followed only inside the data folder ``top`` and
    only to folders not walked yet (``walked``: real paths), so a link out
    of the data set or back up the tree (a loop) is one line, not a hang.
    """
    found, pending = [], [folder]
    while pending:
        current = pending.pop()
        real = os.path.realpath(current)
        if not _inside(real, os.path.realpath(top)):
            raise DataSourceError(f"{current}: links to a folder outside {top}; {_EXPECTED_FOLDER}, inside it")
        if real in walked:
            raise DataSourceError(
                f"{current}: links to a folder already read (a loop, or a second way to it); {_EXPECTED_FOLDER}"
            )
        walked.add(real)
        try:
            entries = sorted(os.scandir(current), key=lambda entry: entry.name)
        except OSError as err:
            raise DataSourceError(f"{current}: cannot read ({err.strerror or err})") from None
        subfolders = []
        for entry in entries:
            if _is_folder(entry):
                if not entry.name.startswith("."):
                    subfolders.append(entry.path)
            elif entry.name.lower().endswith(".txt"):
                found.append(entry.path)
        pending.extend(reversed(subfolders))
    return found


def _is_folder(entry):
    try:
        return entry.is_dir()
    except OSError:
        return False


def read_folder(path):
    """Reads a folder laid out for ``keras.utils.text_dataset_from_directory``.

    ``path/<class>/*.txt`` (searched recursively), one text per file; the
    class names are the sub-folder names, sorted. A folder holding
    ``train/`` (and ``test/``, ``validation/``) each laid out that way is
    read with those splits. Its files together hold at most
    ``MAX_FILE_BYTES``.
    """
    subfolders = _class_folders(path)
    given = [name for name in subfolders if name in GIVEN_SPLITS]
    split_layout = "train" in given and _class_folders(os.path.join(path, "train"))
    parts = [(name, os.path.join(path, name)) for name in given] if split_layout else [(None, path)]
    table = TextTable(path, FOLDER, [], labels=[], splits=[] if split_layout else None, places=[])
    digest = hashlib.sha256()
    names, walked, total = set(), set(), 0
    for split, root in parts:
        classes = _class_folders(root)
        if len(classes) < 2:
            shown = f" ({', '.join(classes)})" if classes else ""
            raise DataSourceError(f"{root}: {len(classes)} class sub-folder(s){shown}; {_EXPECTED_FOLDER}")
        for name in classes:
            files = _txt_files(os.path.join(root, name), path, walked)
            if not files:
                raise DataSourceError(f"{os.path.join(root, name)}: no .txt files; {_EXPECTED_FOLDER}")
            names.add(name)
            for file in files:
                data = _read_bytes(file, MAX_FILE_BYTES - total)
                total += len(data)
                relative = os.path.relpath(file, path)
                digest.update(relative.encode("utf-8") + b"\0" + hashlib.sha256(data).digest())
                _append(table, decode_utf8(data, file), file, name, split)
    table.sha256 = digest.hexdigest()
    table.label_names = sorted(names)
    return _finished(table)


def _append(table, text, place, label, split):
    table.texts.append(text)
    table.places.append(place)
    if table.labels is not None:
        table.labels.append(label)
    if table.splits is not None:
        value = split.strip().lower() if isinstance(split, str) else split
        if value not in GIVEN_SPLITS:
            raise DataSourceError(f"{place}: split {split!r}; expected one of {', '.join(GIVEN_SPLITS)}")
        table.splits.append(value)


def _finished(table):
    """Drops rows whose text is blank (nothing to read), keeping places."""
    keep = [i for i, text in enumerate(table.texts) if text.strip()]
    if not keep:
        raise DataSourceError(f"{table.path}: every text is empty; expected texts to classify")
    table.dropped_empty = len(table.texts) - len(keep)
    if table.dropped_empty:
        for name in ("texts", "labels", "splits", "places"):
            values = getattr(table, name)
            if values is not None:
                setattr(table, name, [values[i] for i in keep])
    return table


def read_path(path):
    """Reads a data file or folder by its extension (see ``FILE_FORMATS``).

    Raises:
        DataSourceError: Missing path, unknown extension, or a bad file.
    """
    try:
        mode = os.stat(path).st_mode
    except OSError as err:
        missing = isinstance(err, (FileNotFoundError, NotADirectoryError))
        reason = "no such file or folder" if missing else f"cannot read ({err.strerror})"
        raise DataSourceError(f"{path}: {reason}") from None
    if stat.S_ISDIR(mode):
        return read_folder(path)
    if not stat.S_ISREG(mode):
        raise DataSourceError(
            f"{path}: is {contract_fields.file_kind(mode)}, not a regular file; expected a data file or a folder"
        )
    ext = os.path.splitext(path)[1].lower()
    fmt = FILE_FORMATS.get(ext)
    if fmt == "csv":
        return read_table(path, ",")
    if fmt == "tsv":
        return read_table(path, "\t")
    if fmt == "jsonl":
        return read_jsonl(path)
    if fmt == "lines":
        return read_lines(path)
    raise DataSourceError(
        f"{path}: unknown file type {ext or '(no extension)'!r}; expected "
        f"{', '.join(sorted(FILE_FORMATS))} or a folder of class sub-folders"
    )
