"""Jane Austen's six completed novels, from Debian's ``r-cran-janeaustenr`` (read without R).

The texts are Project Gutenberg's (public domain). Debian's package of the R data package ``janeaustenr``
1.0.0 (Julia Silge; MIT, see `PACKAGE_LICENCE`), ``r-cran-janeaustenr`` 1.0.0-1 in bookworm/main, carries
them as R's lazy-load database of the package's data: ``usr/lib/R/site-library/janeaustenr/data/``
``Rdata.rdx`` (an RDS file: each novel's offset and length in ``Rdata.rdb``) and ``Rdata.rdb`` (each novel
a zlib-compressed R serialisation of a character vector, one element per printed line, paragraphs
separated by empty lines). The ``.deb`` is fetched with ``apt-get download`` (nothing is installed) and
read with the registry reader (`registry_fetch.read_archive_member`); the R serialisations are parsed by
PyPI's pure-Python ``rdata`` (the ``cloze`` extra).

The split is by novel, as the Children's Book Test's is by book (Hill et al., 2016): `SPLITS`.
"""

from __future__ import annotations

import re
import struct
import warnings
import zlib

from keras_skim.datasets.registry_fetch import RegistryPackage, read_archive_member

PACKAGE = RegistryPackage("debian", "r-cran-janeaustenr", "1.0.0-1")
DATA_FOLDER = "usr/lib/R/site-library/janeaustenr/data/"
INDEX_MEMBER = DATA_FOLDER + "Rdata.rdx"
DATABASE_MEMBER = DATA_FOLDER + "Rdata.rdb"
COPYRIGHT_MEMBER = "usr/share/doc/r-cran-janeaustenr/copyright"
PACKAGE_LICENCE = "MIT (R package janeaustenr, 2016-2017 Julia Silge; Debian packaging 2021 Andreas Tille)"
TEXT_LICENCE = "public domain (Jane Austen's novels, Project Gutenberg texts)"
# The data set names of the R package, and the novels' titles.
NOVELS = {
    "emma": "Emma",
    "mansfieldpark": "Mansfield Park",
    "prideprejudice": "Pride and Prejudice",
    "sensesensibility": "Sense and Sensibility",
    "northangerabbey": "Northanger Abbey",
    "persuasion": "Persuasion",
}
# The four longest novels (119k-160k words each) train; of the two short ones (77k and 83k words), the
# longer gives the test questions, whose count matters most, and the shorter the validation questions.
# As every book source of `keras_skim.datasets.books` names them.
BOOKS = NOVELS
MEMBERS = (INDEX_MEMBER, DATABASE_MEMBER)

SPLITS = {
    "train": ("emma", "mansfieldpark", "prideprejudice", "sensesensibility"),
    "valid": ("northangerabbey",),
    "test": ("persuasion",),
}
# Lines that are no part of the story: chapter and volume headings (each chapter starts a new document),
# and the end marks after which only editors' notes follow ("A NOTE ON THE TEXT" in Northanger Abbey).
_CHAPTER = re.compile(r"^\s*chapter\s+([0-9]+|[ivxlc]+)\.?\s*$", re.IGNORECASE)
_VOLUME = re.compile(r"^\s*volume\s+[ivxlc]+\.?\s*$", re.IGNORECASE)
_END = re.compile(r"^\s*(the end|finis|a note on the text)\s*$", re.IGNORECASE)
# Project Gutenberg marks italics with underscores (_them_); they are no part of the words.
_ITALICS = re.compile(r"_")


def read_lazyload_database(index, database):
    """The objects of an R lazy-load database (``.rdx`` and ``.rdb`` bytes), as ``rdata`` converts them.

    Args:
        index: The ``.rdx`` file: an RDS of ``list(variables = list(name = c(offset, length)), ...,
            compressed = TRUE)``.
        database: The ``.rdb`` file: at each offset, the serialisation's length (4 bytes, big-endian) and
            the zlib-compressed serialisation.

    Returns:
        Dict ``name -> object`` (a character vector comes as a NumPy array of str).

    Raises:
        ValueError: The database is not zlib-compressed, or an entry lies outside it or has another length.
    """
    rdata = _rdata()
    table = _convert(rdata, index)
    compressed = table.get("compressed")
    if compressed is None or int(compressed[0]) != 1:  # R writes TRUE (zlib), 2 (bzip2) or 3 (xz)
        raise ValueError(f"lazy-load database compressed with {table.get('compressed')!r}; only zlib (TRUE) is read")
    objects = {}
    for name, (offset, length) in table["variables"].items():
        entry = database[int(offset) : int(offset) + int(length)]
        if len(entry) != int(length) or len(entry) < 4:
            raise ValueError(f"lazy-load entry {name!r} lies outside the database")
        (size,) = struct.unpack(">I", entry[:4])
        serialised = zlib.decompress(entry[4:])
        if len(serialised) != size:
            raise ValueError(f"lazy-load entry {name!r}: {len(serialised)} bytes, its header says {size}")
        objects[str(name)] = _convert(rdata, serialised)
    return objects


def _rdata():
    try:
        import rdata
    except ImportError as err:
        raise ImportError('reading R data needs PyPI\'s rdata: pip install ".[cloze]"') from err
    return rdata


def _convert(rdata, data):
    # A lazy-load entry is a bare serialisation (no RDS header), which rdata reads as RDS with a warning.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return rdata.conversion.convert(rdata.parser.parse_data(data))


def read_r_data(data):
    """The object of one R serialisation (an ``.rds`` or ``.rda`` file's bytes, compressed or not), as
    PyPI's ``rdata`` converts it (a data frame comes as a pandas DataFrame)."""
    return _convert(_rdata(), data)


def novel_lines(archive):
    """Each novel's printed lines (``name -> list of str``) from the package's ``.deb`` (`PACKAGE`)."""
    objects = read_lazyload_database(
        read_archive_member(archive, INDEX_MEMBER), read_archive_member(archive, DATABASE_MEMBER)
    )
    missing = sorted(set(NOVELS) - set(objects))
    if missing:
        raise ValueError(f"{archive} lacks the novels {', '.join(missing)}")
    return {name: [str(line) for line in objects[name]] for name in NOVELS}


def chapters(lines):
    """A novel's chapters, each its paragraphs' text joined by blank lines (a paragraph's printed lines
    joined by spaces). What precedes the first chapter heading (title page, preface) and follows an end
    mark is left out, as are the headings."""
    found, paragraph = [], []
    for line in lines:
        if _END.match(line):
            break
        heading = _CHAPTER.match(line)
        if found and paragraph and (heading or _VOLUME.match(line) or not line.strip()):
            found[-1].append(" ".join(paragraph))
            paragraph = []
        if heading:
            found.append([])
        elif found and line.strip() and not _VOLUME.match(line):
            paragraph.append(_ITALICS.sub("", line.strip()))
    if paragraph:
        found[-1].append(" ".join(paragraph))
    return ["\n\n".join(chapter) for chapter in found if chapter]


def load_austen_chapters(split, archive=None, cache_dir=None):
    """The chapters of the novels of one split (`SPLITS`), in the split's novel order.

    Args:
        split: ``"train"``, ``"valid"`` or ``"test"``.
        archive: The ``.deb`` to read (None: fetched with ``apt-get download`` into the cache once).
        cache_dir: Cache folder override (see ``cache.cache_root``).

    Returns:
        List of ``(novel name, chapter text)``.
    """
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}; got {split!r}")
    texts = novel_lines(archive if archive is not None else PACKAGE.fetch(cache_dir))
    return [(name, chapter) for name in SPLITS[split] for chapter in chapters(texts[name])]
