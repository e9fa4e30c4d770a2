import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import pytest  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def op_library_current():
    """The packaged custom-op library, current with its sources. `pip install -e .`
    (CI) builds it in place; a checkout run through PYTHONPATH whose library is
    missing or older than its C++ sources gets it built here once, the way
    `pip install -e .` would (the runtime itself never compiles). Without a C++
    compiler nothing is built, and the tests that need the op skip (op_cache)."""
    from keras_skim.litert_ops import native_build

    if not native_build.is_current() and native_build.compiler() is not None:
        native_build.build_library(native_build.HERE)


# Models of every kind the CLI trains, written by the real `keras-skim train`
# on tiny Rotten Tomatoes data: name -> train arguments.
KINDS = {
    "skim": ["--cell", "skim-lstm", "--small-units", "4"],
    "skip": ["--cell", "skim-lstm", "--small-units", "0"],
    "gru": ["--cell", "skim-gru", "--small-units", "4"],
    "lstm": ["--cell", "lstm"],
}
TRAIN = [
    "train",
    "--data",
    "rotten_tomatoes",
    "--units",
    "16",
    "--epochs",
    "1",
    "--no-glove",
    "--max-length",
    "30",
    "--quiet",
    "--gamma",
    "0.05",
]
MAX_LENGTH = 30
# A Structural-Jump-LSTM, both training phases, the fastest settings that still train.
SJ_TRAIN = [
    "train",
    "--cell",
    "sj-lstm",
    "--data",
    "rotten_tomatoes",
    "--units",
    "16",
    "--agent-units",
    "4",
    "--full-read-epochs",
    "1",
    "--speed-read-epochs",
    "1",
    "--no-glove",
    "--max-length",
    str(MAX_LENGTH),
    "--quiet",
]


@pytest.fixture(scope="session")
def trained_folder(tmp_path_factory):
    """Lazily trains one model folder per kind with the real `keras-skim
    train` (tiny data): name -> folder path; "sj" is a Structural-Jump-LSTM."""
    from keras_skim.cli.main import main
    from tests.tiny_data import use_tiny_rotten_tomatoes

    root = tmp_path_factory.mktemp("trained")
    cache = {}

    def get(name):
        if name not in cache:
            folder = str(root / name)
            with pytest.MonkeyPatch.context() as patch:
                use_tiny_rotten_tomatoes(patch, root)
                argv = SJ_TRAIN if name == "sj" else TRAIN + KINDS[name]
                assert main(argv + ["-o", folder]) == 0
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
                result = export_model(folder, out, backend="builtin")
            cache[name] = (os.path.join(folder, "model.keras"), out, result)
        return cache[name]

    return get


@pytest.fixture(autouse=True)
def _seeded():
    import keras

    keras.utils.set_random_seed(1234)
    yield
    keras.backend.clear_session()
