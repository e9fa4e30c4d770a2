"""The splits and the encoded inputs of a cloze set in CBT's text format (`cloze_files`), for any
model that reads the query then the document and picks a candidate (`keras-skim train --task cloze`).

`load_splits` gives a file's train, validation and test questions (CBT-named siblings, else a seeded
hold-out); `encode_questions` gives the token ids (the query's, then the context's) and the candidates'
ids with the project's tokenizer (`keras_skim.datasets.tokenizer`).
"""

import pathlib
import random

import numpy as np

from keras_skim.datasets.cloze_files import read_cloze_file
from keras_skim.datasets.tokenizer import UNK_ID

CANDIDATE_IDS = "candidate_ids"  # a cloze export's input of the candidates' ids (`candidate_ids`)


def question_text(example):
    """All the words of a question, for fitting the tokenizer."""
    return " ".join([example.query, *example.context, *example.candidates])


def encode_question(tokenizer, query, context, candidates):
    """(token ids int32 [T]: the query's then the context's, candidate ids int32 [K]) of one question. The one
    encoding of a cloze reader's inputs, in training and in the runtime (`SkimRunner.answer` of a cloze
    export)."""
    ids = [tokenizer.encode_one(text) for text in (query, context)]
    return np.concatenate([i[i != 0] for i in ids]).astype(np.int32), candidate_ids(tokenizer, candidates)


def candidate_ids(tokenizer, candidates):
    """Each candidate's first token id (else the unknown word's), int32 [K]."""
    found = []
    for word in candidates:
        encoded = tokenizer.encode_one(word)
        found.append(encoded[0] if len(encoded) and encoded[0] else UNK_ID)
    return np.asarray(found, np.int32)


def add_candidate_entries(metadata, num_candidates):
    """What a cloze export's metadata (a `contracts` ExportMetadata) says of its candidates: their ids'
    input and the scores the logits are."""
    from keras_skim.contracts import OUTPUT_LOGITS, TensorInfo

    metadata.num_classes = num_candidates
    metadata.inputs[CANDIDATE_IDS] = TensorInfo(
        [1, num_candidates], "int32", note="each candidate's token id (its first token, else the unknown id)"
    )
    logits = metadata.outputs[OUTPUT_LOGITS]
    logits.shape, logits.note = [1, num_candidates], "each candidate's score e(c_k) . W h: softmax for P(c_k)"
    return metadata


def chosen_candidate(candidates, scores):
    """(the candidate with the highest score, its index, every candidate's probability: the softmax of
    `scores`) of a cloze reader's scores, in the runtime (the answer of a cloze export)."""
    scores = np.asarray(scores, np.float64).reshape(-1)
    probabilities = np.exp(scores - scores.max())
    probabilities /= probabilities.sum()
    index = int(np.argmax(scores))
    return candidates[index], index, probabilities


def encode_questions(examples, tokenizer, max_length):
    """`({"tokens", "candidates"}, labels)` of a cloze reader for CBT examples: the query's ids then the
    context's, cut to `max_length` and padded with 0; each candidate's first token id (else unknown)."""
    tokens = np.zeros((len(examples), max_length), np.int32)
    for row, example in enumerate(examples):
        ids, _ = encode_question(tokenizer, example.query, " ".join(example.context), example.candidates)
        ids = ids[:max_length]
        tokens[row, : len(ids)] = ids
    return {"tokens": tokens, "candidates": encode_candidates(examples, tokenizer)}, answer_labels(examples)


def encode_query_and_context(examples, tokenizer, query_length, context_length):
    """`(query ids (N, query_length), context ids (N, context_length), candidate ids (N, K), labels)` of
    CBT examples, each text cut to its length and padded with 0 at the end (for a reader that must tell
    the query from the context)."""
    query = _padded([tokenizer.encode_one(example.query) for example in examples], query_length)
    context = _padded([tokenizer.encode_one(" ".join(example.context)) for example in examples], context_length)
    return query, context, encode_candidates(examples, tokenizer), answer_labels(examples)


def _padded(encoded, length):
    out = np.zeros((len(encoded), length), np.int32)
    for row, ids in enumerate(encoded):
        ids = ids[ids != 0][:length]
        out[row, : len(ids)] = ids
    return out


def encode_candidates(examples, tokenizer):
    """Each example's candidate ids (`candidate_ids`), int32 `(N, K)`."""
    candidates = np.zeros((len(examples), len(examples[0].candidates) if examples else 0), np.int32)
    for row, example in enumerate(examples):
        candidates[row] = candidate_ids(tokenizer, example.candidates)
    return candidates


def answer_labels(examples):
    """The answer's index among the candidates, int32 `(N,)`."""
    return np.array([example.answer_index for example in examples], np.int32)


def sibling_splits(path):
    """{"validation": path, "test": path} of the files named like `path` with `_valid`/`_test` for its
    `_train` (CBT's and `build_cloze_set.py`'s names), where they exist."""
    path = pathlib.Path(path)
    found = {}
    for split, names in (("validation", ("_valid", "_valid_2000ex")), ("test", ("_test", "_test_2500ex"))):
        for name in names:
            other = path.with_name(path.name.replace("_train", name))
            if "_train" in path.name and other.is_file():
                found[split] = other
                break
    return found


def load_splits(path, seed, limit=None):
    """{"train", "validation", "test": examples} of a CBT-format file: its `_valid`/`_test` siblings where
    they exist, else a seeded 10% / 10% hold-out of the file. A `limit` keeps that many train questions
    drawn with `seed` from the whole file, in file order: the file's questions come document by document,
    from overlapping windows, so its first ones would all come from a few documents."""
    train = read_cloze_file(path)
    siblings = sibling_splits(path)
    splits = {split: read_cloze_file(other) for split, other in siblings.items()}
    if len(splits) < 2:
        random.Random(seed).shuffle(train)
        tenth = max(1, len(train) // 10)
        splits = {"validation": train[:tenth], "test": train[tenth : 2 * tenth]}
        train = train[2 * tenth :]
    if not train:
        raise ValueError(f"{path}: no training questions")
    if limit and limit < len(train):
        train = [train[index] for index in sorted(random.Random(seed).sample(range(len(train)), limit))]
    splits["train"] = train
    return splits
