"""The text-to-ids rules saved next to a model.

The same rules must be re-implemented in Java for the Android runtime, so
they are kept deliberately small:

1. Lowercase ASCII only: ``A``-``Z`` become ``a``-``z``; every other
   character is left as is (and, not being ``[a-z0-9]``, is a separator).
   Full Unicode lowercasing is avoided because Python and Java disagree on
   a few characters.
2. Tokens are, scanning left to right (regex ``TOKEN_PATTERN``):
   a word, i.e. a run of ``[a-z0-9]`` possibly joined by single inner
   apostrophes (``don't``, ``rock'n'roll``); or one punctuation character
   among ``. , ; : ! ? ( ) " ' -``. Punctuation is kept because later layers
   jump to ``, ;`` and ``. ! ?``.
3. Everything else (spaces, other symbols, non-ASCII) separates tokens.
4. Id 0 is ``<pad>``, id 1 is ``<unk>`` (any token not in the vocabulary);
   the rest is the vocabulary by descending frequency, ties alphabetical.
"""

from __future__ import annotations

import collections
import json
import os
import pathlib
import re
from collections.abc import Iterable
from typing import Any

import numpy as np

from keras_skim import contract_fields
from keras_skim.datasets import cache

FORMAT = "keras_skim.tokenizer"
VERSION = 1
FILENAME = "tokenizer.json"
PAD = "<pad>"
UNK = "<unk>"
PAD_ID = 0
UNK_ID = 1
TOKEN_PATTERN = r"[a-z0-9]+(?:'[a-z0-9]+)*|[.,;:!?()\"'\-]"

_TOKEN_RE = re.compile(TOKEN_PATTERN)
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


class Tokenizer:
    """Vocabulary plus the tokenization rules described in the module docstring.

    Args:
        vocabulary: Optional list of tokens, index = id; must start with
            ``<pad>``, ``<unk>``. None gives an empty (unfitted) tokenizer.
        max_length: Default sequence length for ``encode``; saved with it.
    """

    def __init__(self, vocabulary: Iterable[str] | None = None, max_length: int | None = None) -> None:
        self.max_length = None if max_length is None else int(max_length)
        self._set_vocabulary([PAD, UNK] if vocabulary is None else list(vocabulary))

    def _set_vocabulary(self, vocabulary):
        if vocabulary[:2] != [PAD, UNK]:
            raise ValueError(f"vocabulary must start with {PAD!r}, {UNK!r}; got {vocabulary[:2]}")
        if len(set(vocabulary)) != len(vocabulary):
            raise ValueError("vocabulary has duplicate tokens")
        self._vocabulary = vocabulary
        self._ids = {token: i for i, token in enumerate(vocabulary)}

    @staticmethod
    def tokenize(text: str) -> list[str]:
        """Splits one text into tokens.

        Args:
            text: Any string.

        Returns:
            List of tokens, e.g. ``"Don't stop, it's great!"`` ->
            ``["don't", "stop", ",", "it's", "great", "!"]``.
        """
        return _TOKEN_RE.findall(text.translate(_ASCII_LOWER))

    def fit(self, texts: Iterable[str], max_tokens: int = 20000, min_count: int = 1) -> Tokenizer:
        """Builds the vocabulary from texts.

        Args:
            texts: Iterable of strings.
            max_tokens: Largest vocabulary size, ``<pad>`` and ``<unk>``
                included (as in Keras ``TextVectorization``).
            min_count: Tokens seen fewer times are left out.

        Returns:
            ``self``.
        """
        if max_tokens < 2:
            raise ValueError(f"max_tokens must be >= 2 (for {PAD} and {UNK}), got {max_tokens}")
        counts: collections.Counter[str] = collections.Counter()
        for text in texts:
            counts.update(self.tokenize(text))
        for special in (PAD, UNK):
            counts.pop(special, None)
        ranked = sorted(
            (item for item in counts.items() if item[1] >= min_count),
            key=lambda item: (-item[1], item[0]),
        )
        self._set_vocabulary([PAD, UNK] + [token for token, _ in ranked[: max_tokens - 2]])
        return self

    @property
    def vocabulary(self) -> list[str]:
        """List of tokens, index = id (a copy)."""
        return list(self._vocabulary)

    @property
    def vocabulary_size(self) -> int:
        """Number of ids, ``<pad>`` and ``<unk>`` included."""
        return len(self._vocabulary)

    def encode_one(self, text: str, max_length: int | None = None) -> np.ndarray:
        """Encodes one text without padding.

        Args:
            text: A string.
            max_length: If set, tokens past this many are dropped.

        Returns:
            int32 array ``[T]``.
        """
        ids = [self._ids.get(token, UNK_ID) for token in self.tokenize(text)]
        if max_length is not None:
            ids = ids[: int(max_length)]
        return np.asarray(ids, dtype=np.int32)

    def encode(self, texts: Iterable[str], max_length: int | None = None) -> np.ndarray:
        """Encodes texts into a padded batch.

        Args:
            texts: List of strings.
            max_length: Row length; defaults to ``self.max_length``, else to
                the longest text. Longer texts lose their end; shorter ones
                are padded with 0 on the right.

        Returns:
            int32 array ``[N, max_length]``.
        """
        if isinstance(texts, str):
            raise TypeError("encode expects a list of texts; use encode_one for one text")
        length = self.max_length if max_length is None else int(max_length)
        rows = [self.encode_one(text, length) for text in texts]
        if length is None:
            length = max((len(row) for row in rows), default=0)
        batch = np.zeros((len(rows), length), dtype=np.int32)
        for i, row in enumerate(rows):
            batch[i, : len(row)] = row
        return batch

    def decode(self, ids: Iterable[int]) -> str:
        """Turns ids back into space-joined tokens.

        Args:
            ids: Sequence of ints; padding (0) is skipped and ids outside
                the vocabulary read as ``<unk>``.

        Returns:
            A string.
        """
        tokens = []
        for token_id in np.asarray(ids).reshape(-1).tolist():
            if token_id == PAD_ID:
                continue
            in_range = 0 <= token_id < len(self._vocabulary)
            tokens.append(self._vocabulary[token_id] if in_range else UNK)
        return " ".join(tokens)

    def to_config(self) -> dict[str, Any]:
        """Returns the JSON-ready dict that ``save`` writes."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "lowercase": True,
            "token_pattern": TOKEN_PATTERN,
            "max_length": self.max_length,
            "vocabulary": self.vocabulary,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Tokenizer:
        """Rebuilds a tokenizer from ``to_config`` output.

        Args:
            config: The dict.

        Returns:
            A ``Tokenizer``.

        Raises:
            ValueError: Not a keras_skim tokenizer, another version, or rules
                other than the ones this code (and the Java port) implement.
        """
        if not isinstance(config, dict) or config.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} config (format={_get(config, 'format')!r})")
        if config.get("version") != VERSION:
            raise ValueError(f"unsupported tokenizer version {config.get('version')!r}, expected {VERSION}")
        if config.get("lowercase") is not True or config.get("token_pattern") != TOKEN_PATTERN:
            raise ValueError("tokenizer rules differ from this version's (lowercase/token_pattern)")
        problem = contract_fields.field_problem(config, contract_fields.TOKENIZER_FIELDS)
        if problem:
            raise ValueError(problem)
        return cls(vocabulary=config["vocabulary"], max_length=config.get("max_length"))

    def save(self, path: str | os.PathLike[str]) -> pathlib.Path:
        """Writes ``tokenizer.json`` atomically.

        Args:
            path: A folder (the file is ``path/tokenizer.json``) or a file
                path ending in ``.json``.

        Returns:
            The ``pathlib.Path`` written.
        """
        target = _resolve(path)
        text = json.dumps(self.to_config(), ensure_ascii=False, indent=1)
        cache.atomic_write_bytes(target, (text + "\n").encode("utf-8"))
        return target

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Tokenizer:
        """Reads a tokenizer written by ``save``.

        Args:
            path: The folder holding ``tokenizer.json`` or the file itself.

        Returns:
            A ``Tokenizer``.

        Raises:
            ValueError: Missing file, bad JSON or wrong format; the one-line
                message names the file and what was expected.
        """
        target = _resolve(path)
        expected = f"a {FORMAT} version {VERSION} JSON file written by Tokenizer.save"
        if not target.exists():
            raise ValueError(f"Tokenizer file {target} does not exist; expected {expected}.")
        if not target.is_file():
            raise ValueError(f"Tokenizer file {target} is not a regular file; expected {expected}.")
        try:
            # Read with a size limit and parsed with a nesting limit: an
            # endless stream or deep nesting is one line, not a crash.
            config = contract_fields.parse_json(contract_fields.read_limited(target))
            return cls.from_config(config)
        except OSError as err:
            raise ValueError(f"Tokenizer file {target} cannot be read ({err.strerror}).") from None
        except ValueError as err:
            reason = " ".join(str(err).split())
            raise ValueError(f"Tokenizer file {target} is invalid ({reason}); expected {expected}.") from None

    def __repr__(self):
        return f"Tokenizer(vocabulary_size={self.vocabulary_size}, max_length={self.max_length})"


def _get(config, key):
    return config.get(key) if isinstance(config, dict) else None


def _resolve(path):
    path = pathlib.Path(path)
    if path.is_dir() or path.suffix != ".json":
        return path / FILENAME
    return path
