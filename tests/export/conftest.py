import os

import pytest


@pytest.fixture(scope="module")
def op_cache(tmp_path_factory):
    """A fresh KERAS_SKIM_CACHE for one module, so the KerasSkimLSTM library
    is really built there; skips where no C++ compiler exists."""
    import shutil

    if shutil.which(os.environ.get("CXX", "g++")) is None:
        pytest.skip("no C++ compiler: the KerasSkimLSTM custom-op library cannot be built")
    folder = str(tmp_path_factory.mktemp("ks_op_cache"))
    saved = os.environ.get("KERAS_SKIM_CACHE")
    os.environ["KERAS_SKIM_CACHE"] = folder
    yield folder
    if saved is None:
        os.environ.pop("KERAS_SKIM_CACHE", None)
    else:
        os.environ["KERAS_SKIM_CACHE"] = saved
