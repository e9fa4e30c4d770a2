"""Jane Austen's novels out of Debian's r-cran-janeaustenr (`keras_skim.datasets.austen`), on small
invented texts laid out as the package lays out its data: a .deb (an ar archive holding data.tar.xz) with
R's lazy-load database of one character vector per novel, one element per printed line."""

import numpy as np
import pytest
from deb_fixtures import build_cloze_set
from deb_fixtures import deb as _deb
from deb_fixtures import lazyload as _lazyload

from keras_skim.datasets import austen
from keras_skim.datasets.errors import FetchError
from keras_skim.datasets.registry_fetch import RegistryPackage, read_archive_member

# A title page, a preface, volume and chapter headings of both spellings, paragraphs wrapped over printed
# lines, italics in underscores, and an editor's note after the end mark: what the real novels have.
NOVEL = [
    "A STORY OF TEA",
    "",
    "by Jane Doe (1811)",
    "",
    "PREFACE",
    "",
    "This little work was finished long ago.",
    "",
    "VOLUME I",
    "",
    "CHAPTER I",
    "",
    "",
    "Miss Harriet Lane had lived nearly twenty years in the village of",
    "Elmsworth, and had _never_ been to Bath.",
    "",
    "Her aunt kept a parrot.",
    "",
    "",
    "",
    "Chapter 2",
    "",
    "The parrot spoke French.",
    "",
    "",
    "THE END",
    "",
    "A NOTE ON THE TEXT",
    "",
    "This text follows the first edition.",
]
CHAPTERS = [
    "Miss Harriet Lane had lived nearly twenty years in the village of Elmsworth, and had never been to Bath."
    "\n\nHer aunt kept a parrot.",
    "The parrot spoke French.",
]


def test_a_deb_member_is_read_out_of_its_data_tar(tmp_path):
    deb = _deb(tmp_path, {"usr/share/doc/x/copyright": b"License: MIT\n", "usr/lib/x/data": b"123"})
    assert read_archive_member(deb, "usr/share/doc/x/copyright") == b"License: MIT\n"
    assert read_archive_member(deb, "usr/lib/x/data") == b"123"
    with pytest.raises(FetchError, match="usr/lib/x/missing not found"):
        read_archive_member(deb, "usr/lib/x/missing")
    truncated = tmp_path / "truncated.deb"
    truncated.write_bytes(deb.read_bytes()[:80])
    with pytest.raises(FetchError):
        read_archive_member(truncated, "usr/lib/x/data")


def test_debian_is_a_registry_fetched_with_apt_get_download():
    assert austen.PACKAGE.label == "Debian r-cran-janeaustenr=1.0.0-1"
    assert austen.PACKAGE.cached_path().name == "debian-r-cran-janeaustenr-1.0.0-1.deb"
    with pytest.raises(ValueError, match="npm, pypi, debian"):
        RegistryPackage("conda", "x", "1")


def test_chapters_are_the_story_without_headings_front_matter_or_notes():
    assert austen.chapters(NOVEL) == CHAPTERS
    assert austen.chapters(["No chapter heading at all."]) == []


def test_the_split_is_by_novel_and_covers_each_novel_once():
    names = [name for novels in austen.SPLITS.values() for name in novels]
    assert sorted(names) == sorted(austen.NOVELS)
    assert austen.SPLITS["test"] == ("persuasion",) and austen.SPLITS["valid"] == ("northangerabbey",)


def test_the_lazy_load_database_gives_each_novel_its_lines(tmp_path):
    rdata = pytest.importorskip("rdata")  # the `cloze` extra
    index, database = _lazyload(rdata, tmp_path, {"emma": np.array(NOVEL), "persuasion": np.array(["Chapter 1"])})
    objects = austen.read_lazyload_database(index, database)
    assert [str(line) for line in objects["emma"]] == NOVEL
    assert [str(line) for line in objects["persuasion"]] == ["Chapter 1"]
    with pytest.raises(ValueError, match="lies outside the database"):
        austen.read_lazyload_database(index, database[:20])
    plain, _ = _lazyload(rdata, tmp_path, {"emma": np.array(NOVEL)})
    rdata.write_rds(tmp_path / "bzip2.rdx", {"variables": {}, "references": {}, "compressed": np.array([2])})
    with pytest.raises(ValueError, match="only zlib"):
        austen.read_lazyload_database((tmp_path / "bzip2.rdx").read_bytes(), database)


def _austen_deb(rdata, tmp_path):
    """A .deb laid out as r-cran-janeaustenr's, each novel a two-chapter story naming its novel."""
    novels = {
        name: np.array(["TITLE", "", "CHAPTER 1", "", f"The {name} house was old.", "", "CHAPTER 2", "", "It rained."])
        for name in austen.NOVELS
    }
    index, database = _lazyload(rdata, tmp_path, novels)
    files = {austen.INDEX_MEMBER: index, austen.DATABASE_MEMBER: database}
    return _deb(tmp_path, {**files, austen.COPYRIGHT_MEMBER: b"Files: *\nLicense: MIT\n"})


def test_each_split_has_the_chapters_of_its_novels(tmp_path):
    rdata = pytest.importorskip("rdata")
    deb = _austen_deb(rdata, tmp_path)
    test = austen.load_austen_chapters("test", archive=deb)
    assert test == [("persuasion", "The persuasion house was old."), ("persuasion", "It rained.")]
    train = austen.load_austen_chapters("train", archive=deb)
    assert [name for name, _ in train[::2]] == list(austen.SPLITS["train"])
    with pytest.raises(ValueError, match="split must be one of"):
        austen.load_austen_chapters("dev", archive=deb)


def test_the_builder_takes_the_austen_source_with_its_hashes_and_licence(tmp_path):
    rdata = pytest.importorskip("rdata")
    builder = build_cloze_set()
    deb = _austen_deb(rdata, tmp_path)
    args = builder.argparse.Namespace(deb=deb, limit=1)
    texts, source = builder.austen_texts(args)
    assert texts == {split: [f"The {novels[0]} house was old."] for split, novels in austen.SPLITS.items()}
    assert source["sha256"] == builder.file_sha256(deb)
    assert (
        source["members"][austen.INDEX_MEMBER]
        == builder.hashlib.sha256(read_archive_member(deb, austen.INDEX_MEMBER)).hexdigest()
    )
    assert source["copyright_file_licences"] == ["MIT"]
    assert "Persuasion" in source["splits"] and "public domain" in source["licence"]
