import os

import pytest

# Models of every kind the CLI trains, written by the real `keras-skim train`
# on tiny Rotten Tomatoes data: name -> train arguments.
KINDS = {
    "skim": ["--cell", "skim-lstm", "--small-units", "4"],
    "skip": ["--cell", "skim-lstm", "--small-units", "0"],
    "gru": ["--cell", "skim-gru", "--small-units", "4"],
    "lstm": ["--cell", "lstm"],
}
TRAIN = ["train", "--data", "rotten_tomatoes", "--units", "16", "--epochs", "1", "--no-glove",
         "--max-length", "30", "--quiet", "--gamma", "0.05"]
MAX_LENGTH = 30


@pytest.fixture(scope="session")
def trained_folder(tmp_path_factory):
    """Lazily trains one model folder per kind with the real `keras-skim
    train` (tiny data): name -> folder path."""
    from keras_skim.cli.main import main
    from tests.tiny_data import use_tiny_rotten_tomatoes

    root = tmp_path_factory.mktemp("trained")
    cache = {}

    def get(name):
        if name not in cache:
            folder = str(root / name)
            with pytest.MonkeyPatch.context() as patch:
                use_tiny_rotten_tomatoes(patch, root)
                assert main(TRAIN + KINDS[name] + ["-o", folder]) == 0
            cache[name] = folder
        return cache[name]

    return get


@pytest.fixture(scope="session")
def exported(trained_folder, tmp_path_factory):
    """Lazily exports (builtin backend) the real trained folders, with the
    tiny data at hand for parity on real texts: name -> (model file,
    export folder, ExportResult)."""
    from keras_skim.export.exporter import export_model
    from tests.tiny_data import use_tiny_rotten_tomatoes

    cache = {}

    def get(name):
        if name not in cache:
            folder = trained_folder(name)
            out = os.path.join(os.path.dirname(folder), f"{name}_export")
            with pytest.MonkeyPatch.context() as patch:
                use_tiny_rotten_tomatoes(patch, tmp_path_factory.mktemp("data"))
                result = export_model(folder, out)
            cache[name] = (os.path.join(folder, "model.keras"), out, result)
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
