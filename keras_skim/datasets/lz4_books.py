"""Two Project Gutenberg books from the test data of Debian's ``golang-github-pierrec-lz4-dev``.

Debian's package of the Go module ``github.com/pierrec/lz4`` (Pierre Curto; BSD-3-clause, see
`PACKAGE_LICENCE`), ``golang-github-pierrec-lz4-dev`` 2.5.2-2 in bookworm/main, ships the module's
source with its compression test data, among them two public-domain books as Project Gutenberg printed
them (plain text, one printed line a line): Mark Twain's *The Adventures of Tom Sawyer* (#74, without
Gutenberg's header) and Arthur Conan Doyle's *The Adventures of Sherlock Holmes* (``pg1661.txt``, #1661,
with its header and footer).
"""

from __future__ import annotations

from keras_skim.datasets.registry_fetch import RegistryPackage, read_archive_member

PACKAGE = RegistryPackage("debian", "golang-github-pierrec-lz4-dev", "2.5.2-2")
TESTDATA = "usr/share/gocode/src/github.com/pierrec/lz4/testdata/"
FILES = {"tomsawyer": TESTDATA + "Mark.Twain-Tom.Sawyer.txt", "sherlockholmes": TESTDATA + "pg1661.txt"}
COPYRIGHT_MEMBER = "usr/share/doc/golang-github-pierrec-lz4-dev/copyright"
MEMBERS = tuple(FILES.values())
PACKAGE_LICENCE = "BSD-3-clause (Go module lz4, 2015 Pierre Curto; Debian packaging 2015-2017)"
TEXT_LICENCE = (
    "public domain (Project Gutenberg EBooks #74 The Adventures of Tom Sawyer, #1661 The Adventures of Sherlock Holmes)"
)
BOOKS = {
    "tomsawyer": "The Adventures of Tom Sawyer (Mark Twain)",
    "sherlockholmes": "The Adventures of Sherlock Holmes (Arthur Conan Doyle)",
}


def book_lines(archive):
    """Each book's printed lines (``name -> list of str``) from the package's ``.deb`` (`PACKAGE`)."""
    return {
        name: read_archive_member(archive, member).decode("utf-8-sig").replace("\r\n", "\n").split("\n")
        for name, member in FILES.items()
    }
