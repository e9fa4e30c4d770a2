"""Cloze questions made the way the Children's Book Test was made (Hill et al., ICLR 2016, Section 2).

From a tagged document, each run of 21 consecutive sentences gives one question: the first 20 are the
context, and from the 21st one word of a kind (a common noun, "CN", or a named entity, "NE") is replaced by
`cloze_files.PLACEHOLDER`; the candidates are that answer and 9 other words of the same kind from the
context (and the query), sorted. Unlike CBT, the answer must also occur in the context, so that the same
questions can be cast as span extraction (the answer's place in the context).

The 9 other candidates are drawn in one of two ways (`DISTRACTORS`):

- ``"random"``: uniformly from the context's and the query's words of the kind (as CBT drew them). Then
  the candidates give much away without any reading (`keras_skim.datasets.cloze_priors`): the answer must
  occur in the context, so a candidate only the query has is never it; a candidate still written in the
  query is never it; and the answer is often the context's most frequent word of its kind.
- ``"matched"``: from the context's words of the kind that the query does not show, those whose count in
  the context is nearest the answer's (ties broken at random), so that neither the context's word counts
  nor the query's visible words point at the answer.

The answer is one of the query's words of the kind that the context also has, chosen (`ANSWERS`) uniformly
(``"random"``, as CBT chose it) or uniformly among those the context has fewest times (``"rarest"``): on
movie reviews the uniform choice makes "film" and "movie" a quarter of the common-noun answers, which a
reader can guess without the document.

The tagger is the caller's: each sentence comes as a list of `TaggedToken` (text and kind, None for every
other token). `benchmarks/build_cloze_set.py` tags with spaCy's ``en_core_web_sm``.
"""

from __future__ import annotations

import collections
import dataclasses
import random

from keras_skim.datasets.cloze_files import CONTEXT_SENTENCES, NUM_CANDIDATES, PLACEHOLDER, ClozeExample

KINDS = ("CN", "NE")
DISTRACTORS = ("random", "matched")
ANSWERS = ("random", "rarest")


@dataclasses.dataclass(frozen=True)
class TaggedToken:
    """One token of a tagged sentence.

    Attributes:
        text: The token as written.
        kind: ``"CN"`` (a common noun), ``"NE"`` (a one-token named entity) or None.
    """

    text: str
    kind: str = None


def _words_of_kind(sentences, kind):
    return {token.text for sentence in sentences for token in sentence if token.kind == kind}


def _sentence_text(sentence):
    return " ".join(token.text for token in sentence)


def question_from_window(window, kind, rng, num_candidates=NUM_CANDIDATES, distractors="random", answer="random"):
    """One `ClozeExample` from a window of context sentences and a query sentence, or None.

    Args:
        window: The tagged sentences: the context, then the query (its last).
        kind: ``"CN"`` or ``"NE"``: the kind of word removed.
        rng: A `random.Random` choosing the answer and the other candidates.
        num_candidates: Candidates per question, the answer included.
        distractors: How the other candidates are drawn: ``"random"`` or ``"matched"`` (module docstring).
        answer: How the answer is chosen: ``"random"`` or ``"rarest"`` (module docstring).

    Returns:
        The question, or None where the query has no word of `kind` that the context also has, or there
        are fewer than `num_candidates` distinct words of `kind` to offer.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    if distractors not in DISTRACTORS:
        raise ValueError(f"distractors must be one of {', '.join(DISTRACTORS)}; got {distractors!r}")
    if answer not in ANSWERS:
        raise ValueError(f"answer must be one of {', '.join(ANSWERS)}; got {answer!r}")
    context, query = window[:-1], window[-1]
    in_context = _words_of_kind(context, kind)
    answers = sorted({token.text for token in query if token.kind == kind} & in_context)
    if not answers:
        return None
    if answer == "rarest":
        counts = collections.Counter(token.text for sentence in context for token in sentence)
        answers = [word for word in answers if counts[word] == min(counts[other] for other in answers)]
    pick = _random_candidates if distractors == "random" else _matched_candidates
    chosen = pick(context, query, kind, answers, rng, num_candidates - 1)
    if chosen is None:
        return None
    word, others = chosen
    # Every occurrence of the answer in the query is removed, so the query never gives it away.
    query_text = " ".join(PLACEHOLDER if token.text == word else token.text for token in query)
    return ClozeExample(
        tuple(_sentence_text(sentence) for sentence in context),
        query_text,
        word,
        tuple(sorted([word, *others])),
    )


def _random_candidates(context, query, kind, answers, rng, count):
    """(answer, `count` others): the answer one of `answers`, the others uniformly from the words of `kind`
    of the context and the query; None if there are too few (decided before `rng` is drawn from)."""
    pool = sorted((_words_of_kind(context, kind) | _words_of_kind([query], kind)) - {PLACEHOLDER})
    if len(pool) <= count:
        return None
    answer = rng.choice(answers)
    return answer, rng.sample([word for word in pool if word != answer], count)


def _matched_candidates(context, query, kind, answers, rng, count):
    """(answer, `count` others): the answer one of `answers`, the others the words of `kind` in the context,
    not written in the query, whose context counts are nearest the answer's (random among equals); None if
    there are too few."""
    shown = {token.text for token in query}
    pool = sorted(_words_of_kind(context, kind) - shown - {PLACEHOLDER})
    if len(pool) < count:
        return None
    answer = rng.choice(answers)
    counts = collections.Counter(token.text for sentence in context for token in sentence)
    order = {word: rng.random() for word in pool}
    return answer, sorted(pool, key=lambda word: (abs(counts[word] - counts[answer]), order[word]))[:count]


def document_questions(sentences, kind, rng, context_sentences=CONTEXT_SENTENCES, stride=1, **choices):
    """The questions of one document: one per run of `context_sentences` + 1 sentences starting every
    `stride` sentences (where `question_from_window` finds one; `choices` are its `distractors` and
    `answer`). CBT's windows overlap too: its 98 books gave about 1,700 questions of each kind
    per book."""
    size = context_sentences + 1
    found = []
    for start in range(0, len(sentences) - size + 1, stride):
        example = question_from_window(sentences[start : start + size], kind, rng, **choices)
        if example is not None:
            found.append(example)
    return found


def build_questions(documents, kind, seed=0, context_sentences=CONTEXT_SENTENCES, stride=1, **choices):
    """The questions of tagged documents (each a list of tagged sentences), in document order; `seed`
    fixes which word each question removes and which candidates it offers, `stride` is
    `document_questions`', `choices` are `question_from_window`'s `distractors` and `answer`."""
    rng = random.Random(seed)
    options = {"context_sentences": context_sentences, "stride": stride, **choices}
    return [example for sentences in documents for example in document_questions(sentences, kind, rng, **options)]
