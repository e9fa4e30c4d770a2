"""The splits of a CBT-format file and the encoded inputs of a cloze reader (no TensorFlow)."""

import pathlib

import numpy as np

from keras_skim.datasets.cloze_files import read_cloze_file, write_cloze_file
from keras_skim.datasets.cloze_splits import encode_questions, load_splits, question_text
from keras_skim.datasets.tokenizer import UNK_ID, Tokenizer

STORY = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "cloze" / "story_CN_train.txt"


def test_a_lone_file_is_held_out_by_seed():
    splits = load_splits(STORY, seed=0)
    assert {name: len(examples) for name, examples in splits.items()} == {"validation": 1, "test": 1, "train": 8}
    assert load_splits(STORY, seed=0) == splits
    limited = load_splits(STORY, seed=0, limit=3)["train"]
    assert len(limited) == 3 and all(example in splits["train"] for example in limited)
    assert limited == sorted(limited, key=splits["train"].index)  # in the file's order


def test_cbt_named_siblings_are_the_validation_and_test_files(tmp_path):
    examples = read_cloze_file(STORY)
    write_cloze_file(tmp_path / "cbtest_CN_train.txt", examples[:6])
    write_cloze_file(tmp_path / "cbtest_CN_valid_2000ex.txt", examples[6:8])
    write_cloze_file(tmp_path / "cbtest_CN_test_2500ex.txt", examples[8:])
    splits = load_splits(tmp_path / "cbtest_CN_train.txt", seed=0)
    assert splits == {"validation": examples[6:8], "test": examples[8:], "train": examples[:6]}
    # A limit draws from the whole train file (not its first, one-document questions), with the seed.
    draws = [load_splits(tmp_path / "cbtest_CN_train.txt", seed=seed, limit=3)["train"] for seed in range(6)]
    assert all(len(train) == 3 and train == [e for e in examples[:6] if e in train] for train in draws)
    assert any(examples[5] in train for train in draws) and draws[0] != examples[:3]


def test_the_query_is_read_first_then_the_context():
    examples = read_cloze_file(STORY, limit=2)
    tokenizer = Tokenizer().fit([question_text(e) for e in examples])
    inputs, labels = encode_questions(examples, tokenizer, max_length=40)
    query = [i for i in tokenizer.encode_one(examples[0].query) if i]
    context = [i for i in tokenizer.encode_one(" ".join(examples[0].context)) if i]
    assert inputs["tokens"].shape == (2, 40)
    np.testing.assert_array_equal(inputs["tokens"][0], (query + context)[:40])
    assert labels.tolist() == [e.answer_index for e in examples]
    answer_id = inputs["candidates"][0, labels[0]]
    assert tokenizer.decode([answer_id]) == examples[0].answer.lower() and answer_id != UNK_ID
    long = encode_questions(examples, tokenizer, max_length=2000)[0]["tokens"][0]
    assert (long[len(query) + len(context) :] == 0).all() and long[len(query) + len(context) - 1] != 0
