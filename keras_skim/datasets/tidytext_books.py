"""Four Project Gutenberg novels from Debian's ``r-cran-tidytext`` (read without R).

Debian's package of the R package ``tidytext`` 0.4.1 (Julia Silge, David Robinson and others; MIT, see
`PACKAGE_LICENCE`), ``r-cran-tidytext`` 0.4.1-1 in bookworm/main, carries a data frame ``books`` for its
tests, ``usr/lib/R/site-library/tidytext/extdata/books.rda`` (gzip-compressed R data): columns
``gutenberg_id``, ``text`` (one printed line a row, Project Gutenberg's header and footer already taken
off) and ``title``. Its books are public domain (Project Gutenberg): H. G. Wells's *The War of the
Worlds* (#36), Jules Verne's *Twenty Thousand Leagues under the Sea* (#164), Charles Dickens's *Great
Expectations* (#1400), and *Pride and Prejudice* (#1342), which `keras_skim.datasets.austen` already
gives and `BOOKS` leaves out. Read with PyPI's ``rdata``.
"""

from __future__ import annotations

from keras_skim.datasets.austen import read_r_data
from keras_skim.datasets.registry_fetch import RegistryPackage, read_archive_member

PACKAGE = RegistryPackage("debian", "r-cran-tidytext", "0.4.1-1")
BOOKS_MEMBER = "usr/lib/R/site-library/tidytext/extdata/books.rda"
COPYRIGHT_MEMBER = "usr/share/doc/r-cran-tidytext/copyright"
MEMBERS = (BOOKS_MEMBER,)
PACKAGE_LICENCE = "MIT (R package tidytext, 2018-2021 Gabriela De Queiroz, Julia Silge et al.; Debian 2021 A. Tille)"
TEXT_LICENCE = (
    "public domain (Project Gutenberg EBooks #36 The War of the Worlds, #164 Twenty Thousand Leagues "
    "under the Sea, #1400 Great Expectations)"
)
# Project Gutenberg's number of each book taken, by name.
GUTENBERG_IDS = {"warofworlds": 36, "twentythousandleagues": 164, "greatexpectations": 1400}
BOOKS = {
    "warofworlds": "The War of the Worlds (H. G. Wells)",
    "twentythousandleagues": "Twenty Thousand Leagues under the Sea (Jules Verne)",
    "greatexpectations": "Great Expectations (Charles Dickens)",
}


def book_lines(archive):
    """Each book's printed lines (``name -> list of str``) from the package's ``.deb`` (`PACKAGE`).

    Raises:
        ValueError: The data frame lacks a book of `GUTENBERG_IDS`.
    """
    books = read_r_data(read_archive_member(archive, BOOKS_MEMBER))["books"]
    ids = [int(value) for value in books["gutenberg_id"]]
    # R's NA, were a line lost, comes as pandas' missing value (no str): a blank line it is.
    texts = [value if isinstance(value, str) else "" for value in books["text"]]
    found = {name: [text for text, book in zip(texts, ids) if book == number] for name, number in GUTENBERG_IDS.items()}
    missing = sorted(name for name, lines in found.items() if not lines)
    if missing:
        raise ValueError(f"{archive} lacks the books {', '.join(missing)}")
    return found
