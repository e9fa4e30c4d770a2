"""The public-domain books that registry packages carry, together, split by book for a CBT-style cloze set.

Neither the Children's Book Test nor any Project Gutenberg collection is on the registries these machines
reach; single books are, inside Debian packages that ship them as data or test data (each read without
installing it, `registry_fetch`):

- `austen`: Jane Austen's six novels (``r-cran-janeaustenr``);
- `moby_dick`: Herman Melville's *Moby Dick* (``r-cran-tokenizers``);
- `tidytext_books`: Wells's *The War of the Worlds*, Verne's *Twenty Thousand Leagues under the Sea*,
  Dickens's *Great Expectations* (``r-cran-tidytext``);
- `lz4_books`: Twain's *The Adventures of Tom Sawyer*, Doyle's *The Adventures of Sherlock Holmes*
  (``golang-github-pierrec-lz4-dev``).

`SPLITS` holds whole books out, as CBT does (Hill et al., 2016): Austen's split (`austen.SPLITS`) is
kept, so that the valid and test books (*Northanger Abbey*, *Persuasion*) and their questions are those
of the Austen set, and every other book trains.
"""

from __future__ import annotations

from keras_skim.datasets import austen, gutenberg_text, lz4_books, moby_dick, tidytext_books

# Each source module: PACKAGE, BOOKS, MEMBERS, COPYRIGHT_MEMBER, PACKAGE_LICENCE, TEXT_LICENCE, book_lines;
# austen gives novel_lines and splits them with its own `chapters` (the Austen set's files stay as they were).
SOURCES = (austen, moby_dick, tidytext_books, lz4_books)
_OTHER_BOOKS = tuple(name for source in SOURCES[1:] for name in source.BOOKS)
SPLITS = {
    "train": austen.SPLITS["train"] + _OTHER_BOOKS,
    "valid": austen.SPLITS["valid"],
    "test": austen.SPLITS["test"],
}


def book_chapters(source, archive):
    """``name -> chapter texts`` of each book of a source, read out of its archive."""
    if source is austen:
        return {name: austen.chapters(lines) for name, lines in austen.novel_lines(archive).items()}
    return {name: gutenberg_text.chapters(lines) for name, lines in source.book_lines(archive).items()}


def load_book_chapters(split, archives=None, cache_dir=None):
    """The chapters of the books of one split (`SPLITS`), in the split's book order.

    Args:
        split: ``"train"``, ``"valid"`` or ``"test"``.
        archives: ``{package name: path}`` of archives to read instead of fetching them (a source
            missing here is fetched with its registry's client into the cache once).
        cache_dir: Cache folder override (see ``cache.cache_root``).

    Returns:
        List of ``(book name, chapter text)``.
    """
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}; got {split!r}")
    archives = archives or {}
    found = {}
    for source in SOURCES:
        if set(source.BOOKS) & set(SPLITS[split]):
            archive = archives.get(source.PACKAGE.name) or source.PACKAGE.fetch(cache_dir)
            found.update(book_chapters(source, archive))
    return [(name, chapter) for name in SPLITS[split] for chapter in found[name]]
