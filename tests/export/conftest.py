import os

import pytest

from tests.export.helpers import train_tiny


@pytest.fixture(scope="session")
def exported(tmp_path_factory):
    """Lazily trains and exports tiny models once per session: name -> (model path, export dir, result)."""
    from keras_skim.export.exporter import export_model

    root = tmp_path_factory.mktemp("exported")
    cache = {}

    def get(name):
        if name not in cache:
            kind, small = {
                "skim": ("skim_lstm", 4),
                "skip": ("skim_lstm", 0),
                "gru": ("skim_gru", 4),
                "lstm": ("lstm", 0),
            }[name]
            folder = os.path.join(root, name)
            path, _ = train_tiny(folder, kind, small_units=small)
            result = export_model(path, os.path.join(folder, "export"))
            cache[name] = (path, os.path.join(folder, "export"), result)
        return cache[name]

    return get


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
