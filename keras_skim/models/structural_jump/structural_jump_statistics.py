"""Exact reading statistics of a Structural-Jump-LSTM model: read, skipped
and jumped words per document and over a corpus, and the fate of every
token of one text (for `keras-skim show`).

Counted from the model's greedy pass (`training=False`): a word is
*visited* unless a jump passed over it, *read* if it also updated the LSTM,
*skipped* if visited but not read. Punctuation and padding are not words.
The fractions follow the paper's section 4.2 (`Read% = read / n`, `Jump% =
1 - visited / n`, `Skip% = skipped / n`, n = words of the document).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from keras_skim.model_kinds import TOKEN_JUMPED, TOKEN_NOT_A_WORD, TOKEN_READ, TOKEN_SKIMMED
from keras_skim.models.structural_jump.structural_jump_lstm_cell import (
    NUM_JUMP_ACTIONS,
    TRACE_ACTIVE,
    TRACE_JUMP_ACTION,
    TRACE_READ,
    StructuralJumpLSTMCell,
)

JUMP_ACTION_NAMES = ("next_word", "next_separator", "next_sentence", "end_of_text")
# Fate of each raw token in `reading_positions`: the one per-token code table
# (`keras_skim.model_kinds.TOKEN_*`), the codes of the exports' `read_mask`.
NOT_A_WORD, READ_WORD, SKIPPED_WORD, JUMPED_WORD = TOKEN_NOT_A_WORD, TOKEN_READ, TOKEN_SKIMMED, TOKEN_JUMPED


def _check_model(model):
    cell = getattr(model, "cell", None)
    if not isinstance(cell, StructuralJumpLSTMCell) or not hasattr(model, "text_structure"):
        raise ValueError(
            f"{getattr(model, 'name', model)!s} is not a Structural-Jump-LSTM model (expected a "
            "keras_skim.StructuralJumpLSTM, whose agents decide what is read)"
        )
    return cell


def _check_ids(model, token_ids, ndim):
    ids = np.asarray(token_ids)
    if ids.ndim != ndim or not np.issubdtype(ids.dtype, np.integer):
        shape = "(N, T)" if ndim == 2 else "(T,)"
        raise ValueError(f"token_ids must be an integer array {shape}; got {ids.dtype} {ids.shape}")
    vocabulary = model.embedding.input_dim
    if ids.size and (ids.min() < 0 or ids.max() >= vocabulary):
        raise ValueError(
            f"token_ids must be in [0, {vocabulary}) (the model's vocabulary); got [{ids.min()}, {ids.max()}]"
        )
    return ids.astype(np.int32)


def _greedy_trace(model, ids, batch_size):
    """logits, trace and word counts of the greedy pass."""
    if len(ids) == 0:
        return (
            np.zeros((0, model.num_classes), np.float32),
            np.zeros((0, ids.shape[1], model.cell.output_size), np.float32),
            np.zeros((0,), np.int32),
        )
    out = model.predict(ids, batch_size=batch_size, verbose=0)
    return out["logits"], out["trace"], out["word_count"]


def structural_jump_statistics(model: Any, token_ids: ArrayLike, batch_size: int = 64) -> dict[str, Any]:
    """Runs a Structural-Jump-LSTM model greedily and counts what it read.

    Args:
        model: a `keras_skim.StructuralJumpLSTM`.
        token_ids: int array `(N, T)` of raw ids (punctuation included),
            padded with 0.
        batch_size: inference batch size.

    Returns:
        dict with
        - `documents`, `empty_documents` (no word: empty or punctuation only),
          `words`, `visited`, `read`, `skipped`, `jumped` (corpus totals);
        - `read_fraction`, `skip_fraction`, `jump_fraction`: corpus level
          (totals over total words);
        - `per_document`: the same three fractions averaged over the
          documents that have words (the paper's way);
        - `jump_actions`: how often each jump action was taken after a
          read word, by name (`JUMP_ACTION_NAMES`);
        - `counts`: per-document int arrays `word_count`, `visited`, `read`;
        - `predictions`: the predicted class of each document;
        - `logits`: float array `(N, num_classes)`.
    """
    _check_model(model)
    ids = _check_ids(model, token_ids, 2)
    logits, trace, word_count = _greedy_trace(model, ids, batch_size)
    active = trace[..., TRACE_ACTIVE] > 0.5
    read = trace[..., TRACE_READ] > 0.5
    visited_per_doc = active.sum(axis=1).astype(np.int64)
    read_per_doc = read.sum(axis=1).astype(np.int64)
    words_per_doc = word_count.astype(np.int64)
    jumps = trace[..., TRACE_JUMP_ACTION][read].round().astype(np.int64)
    words = int(words_per_doc.sum())
    visited = int(visited_per_doc.sum())
    read_total = int(read_per_doc.sum())
    has_words = words_per_doc > 0
    n = np.maximum(words_per_doc[has_words], 1)

    def mean(values):
        return float(values.mean()) if values.size else 0.0

    return {
        "documents": int(len(ids)),
        "empty_documents": int((~has_words).sum()),
        "words": words,
        "visited": visited,
        "read": read_total,
        "skipped": visited - read_total,
        "jumped": words - visited,
        "read_fraction": read_total / words if words else 0.0,
        "skip_fraction": (visited - read_total) / words if words else 0.0,
        "jump_fraction": (words - visited) / words if words else 0.0,
        "per_document": {
            "read_fraction": mean(read_per_doc[has_words] / n),
            "skip_fraction": mean((visited_per_doc - read_per_doc)[has_words] / n),
            "jump_fraction": mean((words_per_doc - visited_per_doc)[has_words] / n),
        },
        "jump_actions": {name: int((jumps == k).sum()) for k, name in enumerate(JUMP_ACTION_NAMES[:NUM_JUMP_ACTIONS])},
        "counts": {"word_count": words_per_doc, "visited": visited_per_doc, "read": read_per_doc},
        "predictions": logits.argmax(axis=-1) if len(logits) else np.zeros((0,), np.int64),
        "logits": logits,
    }


def reading_positions(model: Any, token_ids: ArrayLike) -> dict[str, Any]:
    """What the model did with each token of one text (greedy pass).

    Args:
        model: a `keras_skim.StructuralJumpLSTM`.
        token_ids: int array `(T,)` of one text's raw ids.

    Returns:
        dict with
        - `status`: int array `(T,)`, per raw token the code an export's
          `read_mask` gives it (`keras_skim.model_kinds.TOKEN_*`):
          `SKIPPED_WORD` (0), `READ_WORD` (1), `JUMPED_WORD` (2) or
          `NOT_A_WORD` (3: punctuation or padding);
        - `jump_actions`: int array `(T,)`, the jump action taken after
          each read word (index into `JUMP_ACTION_NAMES`), -1 elsewhere;
        - `visited`, `read`: the raw positions of the visited and of the
          read words, in order;
        - `logits`: float array `(num_classes,)`.
    """
    _check_model(model)
    ids = _check_ids(model, token_ids, 1)
    status = np.full(len(ids), NOT_A_WORD, np.int32)
    jump_actions = np.full(len(ids), -1, np.int32)
    if len(ids) == 0:
        logits = np.asarray(model(np.zeros((1, 1), np.int32), training=False)["logits"])[0]
        return {
            "status": status,
            "jump_actions": jump_actions,
            "visited": np.zeros(0, np.int32),
            "read": np.zeros(0, np.int32),
            "logits": logits,
        }
    batch = ids[None, :]
    out = model(batch, training=False)
    _, _, positions = model.text_structure(batch)
    positions = np.asarray(positions)[0]
    trace = np.asarray(out["trace"])[0]
    n = int(np.asarray(out["word_count"])[0])
    words = positions[:n]
    active = trace[:n, TRACE_ACTIVE] > 0.5
    read = trace[:n, TRACE_READ] > 0.5
    status[words] = np.where(read, READ_WORD, np.where(active, SKIPPED_WORD, JUMPED_WORD))
    jump_actions[words[read]] = trace[:n, TRACE_JUMP_ACTION][read].round().astype(np.int32)
    return {
        "status": status,
        "jump_actions": jump_actions,
        "visited": words[active],
        "read": words[read],
        "logits": np.asarray(out["logits"])[0],
    }
