"""Cloze questions made the way the Children's Book Test was made (Hill et al., ICLR 2016, Section 2).

From a tagged document, each run of 21 consecutive sentences gives one question: the first 20 are the
context, and from the 21st one word of a kind (a common noun, "CN", or a named entity, "NE") is replaced by
`cloze_files.PLACEHOLDER`; the candidates are that answer and 9 other words of the same kind from the
context (and the query), sorted. Unlike CBT, the answer must also occur in the context, so that the same
questions can be cast as span extraction (the answer's place in the context).

The tagger is the caller's: each sentence comes as a list of `TaggedToken` (text and kind, None for every
other token). `benchmarks/build_cloze_set.py` tags with spaCy's ``en_core_web_sm``.
"""

from __future__ import annotations

import dataclasses
import random

from keras_skim.datasets.cloze_files import CONTEXT_SENTENCES, NUM_CANDIDATES, PLACEHOLDER, ClozeExample

KINDS = ("CN", "NE")


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


def question_from_window(window, kind, rng, num_candidates=NUM_CANDIDATES):
    """One `ClozeExample` from a window of context sentences and a query sentence, or None.

    Args:
        window: The tagged sentences: the context, then the query (its last).
        kind: ``"CN"`` or ``"NE"``: the kind of word removed.
        rng: A `random.Random` choosing the answer and the other candidates.
        num_candidates: Candidates per question, the answer included.

    Returns:
        The question, or None where the query has no word of `kind` that the context also has, or the
        context and query have fewer than `num_candidates` distinct words of `kind`.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    context, query = window[:-1], window[-1]
    in_context = _words_of_kind(context, kind)
    answers = sorted({token.text for token in query if token.kind == kind} & in_context)
    pool = sorted((in_context | _words_of_kind([query], kind)) - {PLACEHOLDER})
    if not answers or len(pool) < num_candidates:
        return None
    answer = rng.choice(answers)
    others = rng.sample([word for word in pool if word != answer], num_candidates - 1)
    # Every occurrence of the answer in the query is removed, so the query never gives it away.
    query_text = " ".join(PLACEHOLDER if token.text == answer else token.text for token in query)
    return ClozeExample(
        tuple(_sentence_text(sentence) for sentence in context),
        query_text,
        answer,
        tuple(sorted([answer, *others])),
    )


def document_questions(sentences, kind, rng, context_sentences=CONTEXT_SENTENCES, stride=1):
    """The questions of one document: one per run of `context_sentences` + 1 sentences starting every
    `stride` sentences (where `question_from_window` finds one). CBT's windows overlap too: its 98 books
    gave about 1,700 questions of each kind per book."""
    size = context_sentences + 1
    found = []
    for start in range(0, len(sentences) - size + 1, stride):
        example = question_from_window(sentences[start : start + size], kind, rng)
        if example is not None:
            found.append(example)
    return found


def build_questions(documents, kind, seed=0, context_sentences=CONTEXT_SENTENCES, stride=1):
    """The questions of tagged documents (each a list of tagged sentences), in document order; `seed`
    fixes which word each question removes and which candidates it offers, `stride` is
    `document_questions`'."""
    rng = random.Random(seed)
    return [
        example
        for sentences in documents
        for example in document_questions(sentences, kind, rng, context_sentences=context_sentences, stride=stride)
    ]
