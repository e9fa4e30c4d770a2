"""Herman Melville's *Moby Dick*, from Debian's ``r-cran-tokenizers`` (read without R).

The text is Project Gutenberg's EBook #2701 (public domain), with its licence header and footer. Debian's
package of the R package ``tokenizers`` 0.3.0 (Lincoln Mullen and others; MIT, see `PACKAGE_LICENCE`),
``r-cran-tokenizers`` 0.3.0-1 in bookworm/main, carries it as the data set ``mobydick``: R's lazy-load
database ``usr/lib/R/site-library/tokenizers/data/Rdata.rdx`` and ``Rdata.rdb``, one character vector of
one element, the whole book with its line ends. It is read as `keras_skim.datasets.austen` reads
Jane Austen's novels (`austen.read_lazyload_database`, PyPI's ``rdata``).
"""

from __future__ import annotations

from keras_skim.datasets.austen import read_lazyload_database
from keras_skim.datasets.registry_fetch import RegistryPackage, read_archive_member

# The package is built per architecture (it has compiled code); its R data are the same on each.
PACKAGE = RegistryPackage("debian", "r-cran-tokenizers", "0.3.0-1")
DATA_FOLDER = "usr/lib/R/site-library/tokenizers/data/"
INDEX_MEMBER = DATA_FOLDER + "Rdata.rdx"
DATABASE_MEMBER = DATA_FOLDER + "Rdata.rdb"
COPYRIGHT_MEMBER = "usr/share/doc/r-cran-tokenizers/copyright"
MEMBERS = (INDEX_MEMBER, DATABASE_MEMBER)
PACKAGE_LICENCE = "MIT (R package tokenizers, 2016-2018 Lincoln Mullen et al.; Debian packaging 2021 Andreas Tille)"
TEXT_LICENCE = "public domain (Herman Melville, Moby Dick; Project Gutenberg EBook #2701)"
BOOKS = {"mobydick": "Moby Dick; or The Whale (Herman Melville)"}


def book_lines(archive):
    """``{"mobydick": printed lines}`` from the package's ``.deb`` (`PACKAGE`).

    Raises:
        ValueError: The database lacks ``mobydick``.
    """
    objects = read_lazyload_database(
        read_archive_member(archive, INDEX_MEMBER), read_archive_member(archive, DATABASE_MEMBER)
    )
    if "mobydick" not in objects:
        raise ValueError(f"{archive} lacks the data set mobydick")
    text = "\n".join(str(part) for part in objects["mobydick"])
    return {"mobydick": text.replace("\r\n", "\n").split("\n")}
