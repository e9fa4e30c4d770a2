"""A Project Gutenberg book's chapters from its printed lines, for the book sources of `keras_skim.datasets.books`.

The books that registry packages carry (`moby_dick`, `tidytext_books`, `lz4_books`) come as Project
Gutenberg printed them: a licence header and footer (``*** START OF ...`` / ``*** END OF ...``), front
matter (title page, contents, preface), chapter headings of several spellings ("CHAPTER 1. Loomings.",
"Chapter I", "CHAPTER ONE", "ADVENTURE I. A SCANDAL IN BOHEMIA" and its parts "I.", "II."), title lines in
capitals, paragraphs wrapped over printed lines and separated by blank lines, italics in underscores.
`chapters` keeps the story: each chapter (or part) one document, as the Children's Book Test keeps
windows inside one book.
"""

from __future__ import annotations

import re

# A heading names its unit and its number (digits, a Roman numeral or a number word), then may give a title.
_UNIT_HEADING = re.compile(
    r"^(chapter|adventure|stave|book|part|volume)\s+([0-9]+|[ivxlc]+|[a-z]+(-[a-z]+)?)\b[.:]?(\s.*)?$",
    re.IGNORECASE,
)
# A part of a chapter numbered alone ("I.", "II.") or with a title in capitals ("VII. THE BLUE CARBUNCLE").
_NUMBER_HEADING = re.compile(r"^[IVXLC]+\.(\s+[A-Z][A-Z0-9' ,.;:-]*)?$")
# Number words a heading may spell out ("CHAPTER ONE"); any other word after "chapter" is prose.
_NUMBER_WORDS = set(
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty thirty forty fifty first second third fourth fifth last".split()
)
# Where the story ends: Project Gutenberg's footer, or the book's own end mark.
_END = re.compile(r"^(\*\*\*\s*end of|end of (the )?project gutenberg|the end\.?$|finis\.?$)", re.IGNORECASE)
_START = re.compile(r"^\*\*\*\s*start of", re.IGNORECASE)
# A heading is one or two printed lines; a longer paragraph that starts like one ("BOOK I. (FOLIO),
# CHAPTER I. (SPERM WHALE).--This whale...", in Moby Dick's Cetology) is prose.
_HEADING_LINES = 2
_HEADING_CHARS = 120


def paragraphs(lines):
    """The paragraphs of the story's printed lines (each joined by spaces, italics' underscores removed),
    after Project Gutenberg's header when there is one and before the first end mark."""
    lines = [line.replace("\r", "").replace("\ufeff", "") for line in lines]
    starts = [index for index, line in enumerate(lines) if _START.match(line.strip())]
    found, paragraph = [], []
    for line in lines[starts[0] + 1 :] if starts else lines:
        text = line.strip()
        if _END.match(text):
            break
        if text:
            paragraph.append(text.replace("_", ""))
        elif paragraph:
            found.append(paragraph)
            paragraph = []
    if paragraph:
        found.append(paragraph)
    return found


def is_heading(paragraph):
    """Whether a paragraph (its printed lines) is a chapter or part heading."""
    text = " ".join(paragraph)
    if len(paragraph) > _HEADING_LINES or len(text) > _HEADING_CHARS:
        return False
    unit = _UNIT_HEADING.match(text)
    if unit:
        number = unit.group(2).lower()
        return number.isdigit() or bool(re.fullmatch(r"[ivxlc]+", number)) or number.split("-")[0] in _NUMBER_WORDS
    return bool(_NUMBER_HEADING.match(text))


def chapters(lines):
    """A book's chapters from its printed lines, each its paragraphs joined by blank lines.

    What precedes the first heading (header, title page, contents, preface) and follows an end mark is
    left out, as are the headings and the paragraphs without a lower-case letter (titles and subtitles
    in capitals). Chapters left empty are dropped.

    Args:
        lines: The book's printed lines (str), as Project Gutenberg printed them.

    Returns:
        List of chapter texts.
    """
    found = []
    for paragraph in paragraphs(lines):
        if is_heading(paragraph):
            found.append([])
        elif found and any(char.islower() for char in "".join(paragraph)):
            found[-1].append(" ".join(paragraph))
    return ["\n\n".join(chapter) for chapter in found if chapter]
