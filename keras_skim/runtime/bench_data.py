"""Texts (and labels when known) for `keras-skim bench`; no TensorFlow."""
import csv
import os


class BenchDataError(ValueError):
    """Unreadable benchmark data; the message is one line."""


def load_bench_texts(spec, samples):
    """(texts, labels or None, description) from a dataset name or a file.

    A file is one text per line, or a .csv/.tsv with `text,label` columns
    (a header row naming them is optional).
    """
    if spec in ("imdb", "rotten_tomatoes"):
        from keras_skim.datasets import load_text_dataset

        try:
            # A seeded class-balanced sample: the IMDB file lists all
            # negative reviews first, so "the first N" would be one class.
            texts, labels = load_text_dataset(spec, "test", limit=samples, seed=0)
        except Exception as err:
            raise BenchDataError(f"cannot load the {spec} test split ({str(err).splitlines()[0]})") from None
        texts, labels = list(texts), [int(v) for v in labels]
        return texts, labels, f"{spec} test split, seeded class-balanced sample of {len(texts)}"
    if not os.path.isfile(spec):
        raise BenchDataError(f"{spec}: no such file (expected imdb, rotten_tomatoes or a text/CSV/TSV file)")
    ext = os.path.splitext(spec)[1].lower()
    try:
        with open(spec, encoding="utf-8", newline="") as f:
            if ext in (".csv", ".tsv"):
                rows = [r for r in csv.reader(f, delimiter="\t" if ext == ".tsv" else ",") if r]
            else:
                rows = [[line.rstrip("\n")] for line in f if line.strip()]
    except (OSError, UnicodeDecodeError, csv.Error) as err:
        raise BenchDataError(f"{spec}: cannot read ({err})") from None
    text_col, label_col = 0, 1
    if rows and ext in (".csv", ".tsv"):
        header = [c.strip().lower() for c in rows[0]]
        if "text" in header:
            text_col = header.index("text")
            label_col = header.index("label") if "label" in header else None
            rows = rows[1:]
    texts, labels = [], []
    for row in rows[:samples]:
        texts.append(row[text_col])
        if label_col is not None and len(row) > label_col:
            try:
                labels.append(int(float(row[label_col])))
            except ValueError:
                label_col = None
    if not texts:
        raise BenchDataError(f"{spec}: no texts found")
    has_labels = label_col is not None and len(labels) == len(texts)
    return texts, labels if has_labels else None, f"{spec}, first {len(texts)}"
