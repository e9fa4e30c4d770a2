import json

import numpy as np
import pytest

from keras_skim.datasets import Tokenizer


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("Don't stop, it's great!", ["don't", "stop", ",", "it's", "great", "!"]),
        ('Well-known (2019) film; "OK"?', ["well", "-", "known", "(", "2019", ")", "film", ";", '"', "ok", '"', "?"]),
        ("'quoted' dogs' rock'n'roll", ["'", "quoted", "'", "dogs", "'", "rock'n'roll"]),
        ("tabs\tand\nnew lines & symbols #@ ok", ["tabs", "and", "new", "lines", "symbols", "ok"]),
        ("Café Ünïcode…", ["caf", "n", "code"]),
        ("", []),
    ],
)
def test_tokenize_rules(text, tokens):
    assert Tokenizer.tokenize(text) == tokens


def test_fit_orders_by_frequency_then_alphabetically():
    tok = Tokenizer().fit(["b a c", "a b", "a", "z"], max_tokens=5)
    assert tok.vocabulary == ["<pad>", "<unk>", "a", "b", "c"]
    assert tok.vocabulary_size == 5
    tok = Tokenizer().fit(["b a c", "a b", "a", "z"], min_count=2)
    assert tok.vocabulary == ["<pad>", "<unk>", "a", "b"]


def test_encode_pads_right_and_truncates_end():
    tok = Tokenizer().fit(["the movie was great , really great"])
    ids = {t: i for i, t in enumerate(tok.vocabulary)}
    batch = tok.encode(["great movie", "the movie was great , really great", "unseen"], max_length=4)
    assert batch.dtype == np.int32 and batch.shape == (3, 4)
    assert batch[0].tolist() == [ids["great"], ids["movie"], 0, 0]
    assert batch[1].tolist() == [ids["the"], ids["movie"], ids["was"], ids["great"]]
    assert batch[2].tolist() == [1, 0, 0, 0]
    one = tok.encode_one("really great unseen")
    assert one.dtype == np.int32 and one.tolist() == [ids["really"], ids["great"], 1]
    assert tok.encode(["great", "the movie"]).shape == (2, 2)  # longest row when no length
    assert tok.decode(batch[0]) == "great movie"
    assert tok.decode([1, 999]) == "<unk> <unk>"


def test_save_load_round_trip(tmp_path):
    tok = Tokenizer(max_length=7).fit(["Don't stop, it's great!"])
    written = tok.save(tmp_path)
    assert written == tmp_path / "tokenizer.json"
    config = json.loads(written.read_text())
    assert config["format"] == "keras_skim.tokenizer" and config["version"] == 1
    assert config["lowercase"] is True and config["max_length"] == 7
    loaded = Tokenizer.load(tmp_path)
    assert loaded.vocabulary == tok.vocabulary and loaded.max_length == 7
    assert loaded.encode(["it's great"]).tolist() == tok.encode(["it's great"]).tolist()
    assert Tokenizer.load(written).vocabulary == tok.vocabulary
    assert Tokenizer.from_config(tok.to_config()).vocabulary == tok.vocabulary
    assert not list(tmp_path.glob("*.part"))


@pytest.mark.parametrize(
    "content, fragment",
    [
        (None, "does not exist"),
        ("not json", "is invalid"),
        (json.dumps({"format": "other"}), "not a keras_skim.tokenizer"),
        (json.dumps({**Tokenizer().to_config(), "version": 2}), "version"),
        (json.dumps({**Tokenizer().to_config(), "token_pattern": "\\w+"}), "rules differ"),
        (json.dumps({**Tokenizer().to_config(), "vocabulary": ["a", "b"]}), "must start with"),
    ],
)
def test_load_bad_files(tmp_path, content, fragment):
    path = tmp_path / "tokenizer.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ValueError) as info:
        Tokenizer.load(path)
    message = str(info.value)
    assert fragment in message and str(path) in message and "\n" not in message
