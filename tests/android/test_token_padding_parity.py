"""The app's TokenPadding against the Python runtime's (`keras_skim.runtime.token_padding`): the same
input length for every text of a sequence that grows and shrinks, the same padded ids, and the same
rule for which exports are padded (`padding_for`: custom-op exports whose padding id is 0). The JNI
shim's runs through it keep the golden files (tests/android/test_core_with_jni_shim.py)."""

import json
import os

import numpy as np

from keras_skim.runtime.token_padding import TokenPadding
from tests.android.conftest import APP_MAIN

LENGTHS = list(range(1, 70)) + [127, 128, 129, 300, 3, 64, 17, 16, 200, 1, 1024, 100, 2000, 40, 5]
ASSETS = os.path.join(APP_MAIN, "assets", "keras_skim")


def test_input_lengths_and_padded_ids_are_the_python_runtimes(probe):
    answer = probe.call("token_padding", lengths=LENGTHS)
    python = TokenPadding(["read_mask"])
    next_id = 1
    lengths = []
    for n, run in zip(LENGTHS, answer["runs"]):
        ids = np.arange(next_id, next_id + n, dtype=np.int32)[None]
        next_id += n
        want = python.pad(ids)
        assert run["length"] == python.length == want.shape[1], n
        assert run["ids"] == want[0].tolist(), n
        lengths.append(run["length"])
    # a few input lengths (powers of two) for many text lengths: the input is resized only where its
    # length changes, far less often than the text length does (at every text here)
    changes = sum(a != b for a, b in zip(lengths, lengths[1:]))
    assert all(n & (n - 1) == 0 for n in lengths) and 5 * changes < len(LENGTHS) - 1, lengths


def test_which_exports_are_padded(probe):
    """Custom-op exports with padding id 0 are; the builtin LSTM (a padding step costs it a full
    step) and an export whose metadata names no padding id are not."""
    for name, padded in (("skim_lstm_custom", True), ("structural_jump_lstm_custom", True), ("lstm_builtin", False)):
        with open(os.path.join(ASSETS, name, "metadata.json"), encoding="utf-8") as f:
            metadata = json.load(f)
        assert probe.call("token_padding", lengths=[3], metadata=metadata)["pads_tokens"] is padded, name
        if padded:
            del metadata["padding_id"]
            assert probe.call("token_padding", lengths=[3], metadata=metadata)["pads_tokens"] is False, name
