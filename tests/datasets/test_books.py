"""The public-domain books out of Debian packages (`keras_skim.datasets.books` and its sources), on small
invented books laid out as each package lays them out: Moby Dick in r-cran-tokenizers' lazy-load database
(one string, Windows line ends), the tidytext data frame of printed lines, and the lz4 module's test data
(plain text files, one with Project Gutenberg's header, footer and a byte-order mark)."""

import numpy as np
import pytest
from deb_fixtures import build_cloze_set, deb, lazyload

from keras_skim.datasets import austen, books, gutenberg_text, lz4_books, moby_dick, tidytext_books
from keras_skim.datasets.errors import FetchError
from keras_skim.datasets.registry_fetch import RegistryPackage

# A Gutenberg book as printed: header, title page, contents (parts numbered in mixed case), headings of
# several spellings, subtitles in capitals, a long paragraph that starts like a heading, an end mark and
# the footer.
BOOK = [
    "\ufeffThe Project Gutenberg EBook of A Voyage, by Ann Smith",
    "",
    "*** START OF THIS PROJECT GUTENBERG EBOOK A VOYAGE ***",
    "",
    "A VOYAGE",
    "",
    "   I. The Harbour",
    "  II. The Storm",
    "",
    "PART ONE",
    "",
    "CHAPTER 1. The Harbour.",
    "",
    "THE GREY MORNING",
    "",
    "Call me Jonas. The _Swallow_ lay at anchor",
    "in the harbour of Bristol.",
    "",
    "BOOK I. (FOLIO), CHAPTER I. (THE SHIP).--This ship, among the",
    "largest of her kind, had three masts",
    "and a figurehead.",
    "",
    "CHAPTER TWO",
    "",
    "The storm came at night.",
    "",
    "II.",
    "",
    "The captain slept.",
    "",
    "Chapter and verse were quoted",
    "at every meal in the house.",
    "",
    "THE END",
    "",
    "*** END OF THIS PROJECT GUTENBERG EBOOK A VOYAGE ***",
    "Project Gutenberg's licence follows.",
]
CHAPTERS = [
    "Call me Jonas. The Swallow lay at anchor in the harbour of Bristol.\n\n"
    "BOOK I. (FOLIO), CHAPTER I. (THE SHIP).--This ship, among the largest of her kind, had three masts "
    "and a figurehead.",
    "The storm came at night.",
    "The captain slept.\n\nChapter and verse were quoted at every meal in the house.",
]


def test_chapters_keep_the_story_between_the_headings():
    assert gutenberg_text.chapters(BOOK) == CHAPTERS
    # Without Gutenberg's header, the front matter before the first heading is left out all the same.
    assert gutenberg_text.chapters(BOOK[3:]) == CHAPTERS
    assert gutenberg_text.chapters(["No heading at all."]) == []


@pytest.mark.parametrize(
    ("paragraph", "heading"),
    [
        (["CHAPTER XXIII"], True),
        (["Chapter I."], True),
        (["CHAPTER SEVENTEEN"], True),
        (["ADVENTURE IV. THE BOSCOMBE VALLEY MYSTERY"], True),
        (["VIII. THE ADVENTURE OF THE SPECKLED BAND"], True),
        (["CHAPTER 73. Stubb and Flask Kill a Right Whale; and Then Have a Talk", "Over Him."], True),
        (["  IX. The Adventure of the Engineer's Thumb"], False),
        (["Chapter and verse were quoted."], False),
        (["BOOK I. (FOLIO), CHAPTER I.", "(SPERM WHALE).--This whale,", "among the cetacea."], False),
    ],
)
def test_a_heading_is_a_short_numbered_line(paragraph, heading):
    assert gutenberg_text.is_heading([line.strip() for line in paragraph]) is heading


def _moby_deb(rdata, tmp_path):
    text = "\r\n".join(["The Project Gutenberg EBook of Moby Dick", "", "*** START OF THIS ***"] + BOOK[9:])
    index, database = lazyload(rdata, tmp_path, {"mobydick": np.array([text])})
    files = {moby_dick.INDEX_MEMBER: index, moby_dick.DATABASE_MEMBER: database}
    return deb(tmp_path, {**files, moby_dick.COPYRIGHT_MEMBER: b"Files: *\nLicense: MIT\n"})


def _tidytext_deb(rdata, tmp_path):
    """The data frame of printed lines, Pride and Prejudice (Austen's source has it) among the books."""
    pandas = pytest.importorskip("pandas")
    rows = [(1342, "It is a truth universally acknowledged.")]
    for name, number in tidytext_books.GUTENBERG_IDS.items():
        rows += [(number, line) for line in ("CHAPTER I", "", f"The {name} began.", "", "It went on.")]
    frame = pandas.DataFrame(
        {
            "gutenberg_id": pandas.array([number for number, _ in rows], dtype="Int32"),
            "text": pandas.Series([line for _, line in rows], dtype=object),
            "title": pandas.Series([str(number) for number, _ in rows], dtype=object),
        }
    )
    rdata.write_rda(tmp_path / "books.rda", {"books": frame}, compression="gzip")
    files = {tidytext_books.BOOKS_MEMBER: (tmp_path / "books.rda").read_bytes()}
    return deb(tmp_path, {**files, tidytext_books.COPYRIGHT_MEMBER: b"Files: *\nLicense: MIT\n"})


def _lz4_deb(tmp_path):
    files = {
        lz4_books.FILES["tomsawyer"]: "\n".join(
            ["PREFACE", "", "Most of it happened.", "", "CHAPTER I", "", "TOM!", "", "No answer."]
        ),
        lz4_books.FILES["sherlockholmes"]: "\ufeff" + "\r\n".join(BOOK[1:]),
    }
    files = {name: text.encode("utf-8") for name, text in files.items()}
    return deb(tmp_path, {**files, lz4_books.COPYRIGHT_MEMBER: b"Files: *\nLicense: BSD-3-clause\n"})


def test_moby_dick_is_the_one_string_of_its_data_set(tmp_path):
    rdata = pytest.importorskip("rdata")
    lines = moby_dick.book_lines(_moby_deb(rdata, tmp_path))["mobydick"]
    assert not any("\r" in line for line in lines)
    assert gutenberg_text.chapters(lines) == CHAPTERS


def test_tidytext_gives_its_books_by_gutenberg_number_without_pride_and_prejudice(tmp_path):
    rdata = pytest.importorskip("rdata")
    found = tidytext_books.book_lines(_tidytext_deb(rdata, tmp_path))
    assert sorted(found) == sorted(tidytext_books.BOOKS)
    assert found["warofworlds"] == ["CHAPTER I", "", "The warofworlds began.", "", "It went on."]
    assert gutenberg_text.chapters(found["greatexpectations"]) == ["The greatexpectations began.\n\nIt went on."]


def test_the_lz4_test_data_give_tom_sawyer_and_sherlock_holmes(tmp_path):
    found = lz4_books.book_lines(_lz4_deb(tmp_path))
    # The preface goes (before the first heading), and so does a paragraph in capitals.
    assert gutenberg_text.chapters(found["tomsawyer"]) == ["No answer."]
    assert not found["sherlockholmes"][0].startswith("\ufeff")
    assert gutenberg_text.chapters(found["sherlockholmes"]) == CHAPTERS


def _archives(rdata, tmp_path):
    folders = {name: tmp_path / name for name in ("austen", "moby", "tidytext", "lz4")}
    for folder in folders.values():
        folder.mkdir()
    novels = {
        name: np.array(["TITLE", "", "CHAPTER 1", "", f"The {name} house was old.", "", "CHAPTER 2", "", "It rained."])
        for name in austen.NOVELS
    }
    index, database = lazyload(rdata, folders["austen"], novels)
    austen_files = {
        austen.INDEX_MEMBER: index,
        austen.DATABASE_MEMBER: database,
        austen.COPYRIGHT_MEMBER: b"License: MIT\n",
    }
    return {
        austen.PACKAGE.name: deb(folders["austen"], austen_files),
        moby_dick.PACKAGE.name: _moby_deb(rdata, folders["moby"]),
        tidytext_books.PACKAGE.name: _tidytext_deb(rdata, folders["tidytext"]),
        lz4_books.PACKAGE.name: _lz4_deb(folders["lz4"]),
    }


def test_the_split_is_by_book_and_keeps_austens():
    names = [name for split in books.SPLITS.values() for name in split]
    assert sorted(names) == sorted(name for source in books.SOURCES for name in source.BOOKS)
    assert books.SPLITS["valid"] == austen.SPLITS["valid"] and books.SPLITS["test"] == austen.SPLITS["test"]
    assert set(austen.SPLITS["train"]) < set(books.SPLITS["train"])


def test_each_split_has_the_chapters_of_its_books(tmp_path):
    rdata = pytest.importorskip("rdata")
    archives = _archives(rdata, tmp_path)
    test = books.load_book_chapters("test", archives=archives)
    assert test == [("persuasion", "The persuasion house was old."), ("persuasion", "It rained.")]
    train = books.load_book_chapters("train", archives=archives)
    assert [name for name, _ in train].count("sherlockholmes") == len(CHAPTERS)
    assert ("warofworlds", "The warofworlds began.\n\nIt went on.") in train
    assert "prideprejudice" in {name for name, _ in train}
    with pytest.raises(ValueError, match="split must be one of"):
        books.load_book_chapters("dev", archives=archives)


def test_the_builder_takes_the_books_source_with_each_package_hashed(tmp_path):
    rdata = pytest.importorskip("rdata")
    archives = _archives(rdata, tmp_path)
    builder = build_cloze_set()
    args = builder.argparse.Namespace(deb=None, limit=None, archive=list(archives.items()))
    texts, source = builder.books_texts(args)
    assert texts["valid"] == ["The northangerabbey house was old.", "It rained."]
    # Austen's four training novels (2 chapters each), Moby Dick (3), tidytext's three books (1 each),
    # Tom Sawyer (1), Sherlock Holmes (3).
    assert len(texts["train"]) == 8 + 3 + 3 + 1 + 3
    assert [entry["sha256"] for entry in source["packages"]] == [
        builder.file_sha256(archives[module.PACKAGE.name]) for module in books.SOURCES
    ]
    assert source["packages"][3]["copyright_file_licences"] == ["BSD-3-clause"]
    assert source["books"]["sherlockholmes"] == {"chapters": 3, "words": sum(len(text.split()) for text in CHAPTERS)}
    assert "public domain" in source["packages"][1]["licence"] and "Persuasion" not in source["splits"]
    assert "| Moby Dick; or The Whale (Herman Melville) |" in builder.books_markdown(source)


def test_an_unreachable_registry_is_one_line_and_exit_status_2(tmp_path, monkeypatch, capsys):
    rdata = pytest.importorskip("rdata")
    archives = _archives(rdata, tmp_path)
    builder = build_cloze_set()

    def unreachable(package, cache_dir=None, timeout=None):
        raise FetchError(f"{package.label} failed: E: Unable to locate package {package.name}")

    monkeypatch.setattr(RegistryPackage, "fetch", unreachable)
    given = [f"--archive={name}={path}" for name, path in archives.items() if name != lz4_books.PACKAGE.name]
    assert builder.main(["--source", "books", "--manifest", str(tmp_path / "set"), *given]) == 2
    error = capsys.readouterr().err
    package = lz4_books.PACKAGE
    assert error == f"build_cloze_set: {package.label} failed: E: Unable to locate package {package.name}\n"
    assert package.label == "Debian golang-github-pierrec-lz4-dev=2.5.2-2"
    assert not (tmp_path / "set.json").exists()
    with pytest.raises(SystemExit):
        builder.main(["--source", "books", "--archive", "no-path-given"])
