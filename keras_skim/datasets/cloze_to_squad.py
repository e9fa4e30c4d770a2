"""A cloze set cast as span extraction: Children's-Book-Test-format text to
a SQuAD-format JSON file (`keras_skim.datasets.squad`), so that the span
readers train on it (its answer word occurs in the context).

CBT's released files hold one example per 21 numbered lines, a blank line
between examples: lines 1-20 are the context's sentences ("1 Once upon a
time ..."), line 21 is "21 <query with XXXXX>\\t<answer>\\t\\t<c1>|<c2>|...|<c10>".
The context is the 20 sentences joined by single spaces, the question is the
query (XXXXX kept, as the cloze's blank), the answer is the answer word at its
first whole-word occurrence in the context; an example whose answer does not
occur in the context is left out (and counted).

    python -m keras_skim.datasets.cloze_to_squad cbtest_NE_train.txt cbt_ne_train_squad.json
"""

import json
import pathlib
import re
import sys

from keras_skim.datasets.errors import DataSourceError

CONTEXT_SENTENCES = 20
BLANK = "XXXXX"


def cloze_examples(lines, source="<text>"):
    """[(context sentences, query, answer, candidates)] of CBT-format lines.

    Raises:
        DataSourceError: a block that is not 20 numbered sentences and a
            query line (one line naming `source` and the line).
    """
    examples, block, first_line = [], [], 1
    for number, line in enumerate([*lines, ""], start=1):
        line = line.rstrip("\n")
        if line.strip():
            if not block:
                first_line = number
            block.append(line)
            continue
        if block:
            examples.append(_example(block, f"{source}:{first_line}"))
            block = []
    return examples


def _example(block, where):
    if len(block) != CONTEXT_SENTENCES + 1:
        raise DataSourceError(f"{where}: a CBT example has {CONTEXT_SENTENCES + 1} numbered lines; got {len(block)}")
    sentences = [_numbered(line, index + 1, where) for index, line in enumerate(block[:CONTEXT_SENTENCES])]
    fields = _numbered(block[-1], CONTEXT_SENTENCES + 1, where).split("\t")
    if len(fields) < 4 or BLANK not in fields[0] or not fields[1]:
        raise DataSourceError(f"{where}: line 21 must be 'query with {BLANK}<TAB>answer<TAB><TAB>c1|c2|...'")
    return sentences, fields[0], fields[1], [candidate for candidate in fields[3].split("|") if candidate]


def _numbered(line, expected, where):
    number, _, text = line.partition(" ")
    if number != str(expected):
        raise DataSourceError(f"{where}: line {expected} of an example must start with '{expected} '")
    return text


def cloze_to_squad(examples, title="cloze"):
    """(SQuAD-format document, examples left out) of `cloze_examples`' examples."""
    qas_paragraphs, left_out = [], 0
    for index, (sentences, query, answer, candidates) in enumerate(examples):
        context = " ".join(sentence.strip() for sentence in sentences)
        found = re.search(rf"(?<!\w){re.escape(answer)}(?!\w)", context)
        if found is None:
            left_out += 1
            continue
        qa = {
            "id": f"{title}-{index}",
            "question": query.strip(),
            "answers": [{"text": answer, "answer_start": found.start()}],
            "candidates": candidates,
        }
        qas_paragraphs.append({"context": context, "qas": [qa]})
    return {"version": "1.1", "data": [{"title": title, "paragraphs": qas_paragraphs}]}, left_out


def convert_file(source, target):
    """Writes the SQuAD-format JSON of a CBT-format file; returns (questions written, left out)."""
    source = pathlib.Path(source)
    try:
        lines = source.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise DataSourceError(f"{source}: cannot read ({err})") from None
    document, left_out = cloze_to_squad(cloze_examples(lines, str(source)), title=source.stem)
    pathlib.Path(target).write_text(json.dumps(document) + "\n", encoding="utf-8")
    return len(document["data"][0]["paragraphs"]), left_out


def main(argv=None):
    """`python -m keras_skim.datasets.cloze_to_squad CBT.txt OUT.json`: exit 0, or 2 with one stderr line."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: python -m keras_skim.datasets.cloze_to_squad CBT.txt OUT.json", file=sys.stderr)
        return 2
    try:
        written, left_out = convert_file(*argv)
    except DataSourceError as err:
        print(f"cloze_to_squad: error: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    print(f"wrote {argv[1]}: {written} questions ({left_out} left out: answer not in the context)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
