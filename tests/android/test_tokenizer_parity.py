"""The app's Java tokenizer against keras_skim.datasets.tokenizer, text by text, on the
fixture texts (Unicode traps included) and on seeded random strings."""

import json
import random

import pytest

from export.fixtures import FIXTURES
from keras_skim.datasets.tokenizer import TOKEN_PATTERN, Tokenizer

# Characters that a port gets wrong when it lower-cases or classifies with Unicode rules.
TRAPS = (
    "\u0130\u0131\u212a\u212b\ufb01\ufb02\u00df\u1e9e\u03a3\u03c2\uff21\uff41\uff10\u2019\u2018\u201c\u201d"
    "\u00e9\u0301\u00a0\u2028\u200b\u200d\U0001f44d\U0001f3fd\u00c9\u0100\u01c5\u2160\u00b2"
)
ASCII = "abcXYZ019'-.,;:!?()\"/_ \t\n#@&*[]{}<>"


def _random_texts(count, seed=7):
    rng = random.Random(seed)
    alphabet = list(ASCII * 3) + list(TRAPS)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(count)]


def test_token_pattern_matches_python(probe):
    assert probe.call("constants")["token_pattern"] == TOKEN_PATTERN


@pytest.mark.parametrize("name,text", FIXTURES, ids=[name for name, _ in FIXTURES])
def test_fixture_tokens_match_python(probe, name, text):
    (java,) = probe.call("tokenize", texts=[text])
    assert java["tokens"] == Tokenizer.tokenize(text)


def test_unicode_traps_are_separators():
    """What the fixtures pin down: only A-Z are lower-cased, every non-ASCII letter separates."""
    assert Tokenizer.tokenize("\u0130stanbul") == ["stanbul"]
    assert Tokenizer.tokenize("5\u212a OK") == ["5", "ok"]
    assert Tokenizer.tokenize("\ufb01ne") == ["ne"]
    assert Tokenizer.tokenize("it\u2019s rock'n'roll") == ["it", "s", "rock'n'roll"]
    assert Tokenizer.tokenize("\uff27\uff32\uff25\uff21\uff34") == []


def test_random_strings_match_python(probe):
    texts = _random_texts(400)
    java = probe.call("tokenize", texts=texts)
    mismatches = [
        (t, j["tokens"], Tokenizer.tokenize(t)) for t, j in zip(texts, java) if j["tokens"] != Tokenizer.tokenize(t)
    ]
    assert not mismatches, mismatches[:3]


@pytest.mark.parametrize("max_length", [None, 5])
def test_ids_match_python(probe, tmp_path, max_length):
    texts = [text for _, text in FIXTURES] + _random_texts(50, seed=3)
    tok = Tokenizer(max_length=30).fit(texts[:12] + ["\u212a \u0130 great movie don't"], max_tokens=60)
    path = tok.save(tmp_path)
    java = probe.call("tokenize", texts=texts, tokenizer=str(path), max_length=max_length)
    for text, j in zip(texts, java):
        assert j["ids"] == tok.encode_one(text, max_length=max_length).tolist(), text


def _tokenizer_text(**changes):
    config = Tokenizer(vocabulary=["<pad>", "<unk>", "good"], max_length=7).to_config()
    config.update(changes)
    return json.dumps(config)


def test_reads_a_saved_tokenizer(probe):
    assert probe.call("tokenizer", text=_tokenizer_text()) == {"vocabulary_size": 3, "max_length": 7, "token_2": "good"}


@pytest.mark.parametrize(
    "changes,message",
    [
        ({"token_pattern": "[a-z]+"}, "tokenizer rules differ"),
        ({"lowercase": False}, "tokenizer rules differ"),
        ({"version": 2}, "unsupported tokenizer version 2"),
        ({"format": "other"}, "not a keras_skim.tokenizer file"),
        ({"vocabulary": ["<unk>", "<pad>", "good"]}, "vocabulary must start with"),
        ({"vocabulary": ["<pad>", "<unk>", "good", "good"]}, "duplicate tokens"),
        ({"vocabulary": ["<pad>", "<unk>", 3]}, "must hold strings only"),
        ({"max_length": "long"}, '"max_length" must be an integer'),
    ],
)
def test_refuses_what_python_refuses(probe, changes, message):
    """The same tokenizer.json files that Tokenizer.from_config refuses, with a one-line reason."""
    text = _tokenizer_text(**changes)
    answer = probe.call("tokenizer", text=text)
    assert message in answer["error"] and "\n" not in answer["error"]
    if "max_length" not in changes:
        with pytest.raises(ValueError):
            Tokenizer.from_config(json.loads(text))
