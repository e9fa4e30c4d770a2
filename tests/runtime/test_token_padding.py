"""Token padding (`keras_skim.runtime.token_padding`): a custom-op export
runs texts of many lengths at a few padded input lengths, with outputs that
are bit for bit those of the unpadded run (the path before padding), and
builtin exports are run as before (no padding)."""

import os

import numpy as np
import pytest

from keras_skim import contracts
from keras_skim.runtime.runner import SkimRunner
from keras_skim.runtime.token_padding import MIN_LENGTH, SLACK, TokenPadding, padded_length

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "android_demo", "app", "src", "main", "assets", "keras_skim")
# Every length up to two chunks of the op's hoisting (32), then longer ones, in an order that grows and shrinks.
LENGTHS = list(range(1, 70)) + [127, 128, 129, 300, 3, 64, 17, 16, 200, 1]


def test_padded_length_buckets_and_slack():
    assert [padded_length(n, None) for n in (1, 16, 17, 32, 33, 100)] == [16, 16, 32, 32, 64, 128]
    assert padded_length(0, None) == MIN_LENGTH
    assert padded_length(20, 128) == 128  # a shorter text keeps the longer input: 128 <= SLACK * 32
    assert padded_length(5, SLACK * MIN_LENGTH * 2) == MIN_LENGTH  # too much padding: back to its own bucket
    assert padded_length(129, 128) == 256  # a longer text grows the input


def test_pad_clears_what_the_previous_text_left():
    padding = TokenPadding(["read_mask"])
    first = padding.pad(np.arange(1, 11, dtype=np.int32)[None]).copy()
    second = padding.pad(np.array([[7, 8]], np.int32))
    assert first.shape == second.shape == (1, 16)
    assert second[0, :2].tolist() == [7, 8] and not second[0, 2:].any()
    out = padding.cut({"logits": np.zeros((1, 2)), "read_mask": np.ones((1, 16))}, 2)
    assert out["read_mask"].shape == (1, 2) and out["logits"].shape == (1, 2)


def _unpadded(runner, ids, threshold):
    """The run as it was before padding: the signature called on the text's own length."""
    prepared, threshold = runner.prepare(ids, threshold)
    return runner._signature(**contracts.signature_inputs(runner._takes, prepared, threshold))


@pytest.mark.parametrize("name", ["skim_lstm_custom", "structural_jump_lstm_custom"])
def test_custom_op_exports_give_the_unpadded_outputs_bit_for_bit(name):
    runner = SkimRunner(os.path.join(DEMO, name))
    assert runner._padding is not None
    rng = np.random.default_rng(3)
    thresholds = (0.0, 0.5, 0.9) if runner.skims else (None,)
    shapes = set()
    for n in LENGTHS:
        ids = rng.integers(1, runner.vocabulary_size, n)
        if n > 4:
            ids[rng.integers(0, n, 2)] = contracts.PADDING_ID  # padding inside the text too
        for threshold in thresholds:
            got = runner.run_ids(ids, threshold)
            want = _unpadded(runner, ids, threshold)
            assert got.keys() == want.keys()
            for key in want:
                assert got[key].dtype == want[key].dtype and got[key].shape == want[key].shape, key
                assert np.array_equal(got[key], want[key]), (name, n, threshold, key)
            run = runner._padding.pad(runner.prepare(ids)[0])
            shapes.add(run.shape)
    # far fewer input shapes than lengths: most texts ran without an input resize
    assert len(shapes) <= 6 < len(set(LENGTHS))


def test_builtin_exports_are_not_padded(exported):
    for path in (os.path.join(DEMO, "lstm_builtin"), exported("skim")[1]):
        runner = SkimRunner(path)
        assert runner._padding is None
        ids = np.arange(1, 12)
        out = runner.run_ids(ids)
        assert out[contracts.OUTPUT_READ_MASK].shape == (1, 11)
        want = _unpadded(runner, ids, None)
        assert all(np.array_equal(out[k], want[k]) for k in want)
