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
from tests.assertions import one_line

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


def test_length_for_is_padded_length_kept_from_text_to_text():
    """`length_for` (one comparison per text while `low` < T <= `length`, the
    path the C API runner takes) picks what `padded_length` picks from the
    length before, for lengths that grow and shrink."""
    padding = TokenPadding(["read_mask"])
    rng = np.random.default_rng(1)
    current = None
    for n in LENGTHS + rng.integers(1, 3000, 2000).tolist():
        want = padded_length(n, current)
        assert padding.length_for(n) == padding.length == want, (n, current)
        assert padding.low < n <= padding.length
        current = want


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


def test_token_call_gives_new_arrays_cut_to_each_text():
    """The one-call path (`litert_runner.TokenCall`) returns arrays that stay
    the caller's while later texts of other lengths and input lengths run
    (its output views are kept between calls), per-token outputs cut to the
    text; a failed run, a closed model and a signature of other inputs are
    one-line errors."""
    from keras_skim.runtime.litert_runner import LiteRtError

    runner = SkimRunner(os.path.join(DEMO, "skim_lstm_custom"))
    calls = runner._tokens
    rng = np.random.default_rng(4)
    kept = []
    for n in LENGTHS:
        ids, threshold = runner.prepare(rng.integers(1, runner.vocabulary_size, n), 0.5)
        out = calls(ids, threshold)
        assert out[contracts.OUTPUT_READ_MASK].shape == (1, n)
        assert all(value.flags.owndata and value.flags.writeable for value in out.values())
        kept.append((out, {key: value.copy() for key, value in out.items()}))
    for out, copy in kept:
        assert all(np.array_equal(out[key], copy[key]) for key in copy)
    with pytest.raises(LiteRtError) as info:
        calls(np.array([[runner.vocabulary_size]], np.int32), np.float32(0.5))
    assert "outside the vocabulary" in one_line(str(info.value))
    with pytest.raises(ValueError) as info:
        runner._signature.token_call(contracts.INPUT_THRESHOLD, None, [], runner._padding, runner._check_outputs)
    assert "does not take token ids" in one_line(str(info.value))
    runner.interpreter.close()
    with pytest.raises(ValueError, match="closed"):
        calls(ids, threshold)


def test_builtin_exports_are_not_padded(exported):
    for path in (os.path.join(DEMO, "lstm_builtin"), exported("skim")[1]):
        runner = SkimRunner(path)
        assert runner._padding is None
        ids = np.arange(1, 12)
        out = runner.run_ids(ids)
        assert out[contracts.OUTPUT_READ_MASK].shape == (1, 11)
        want = _unpadded(runner, ids, None)
        assert all(np.array_equal(out[k], want[k]) for k in want)
