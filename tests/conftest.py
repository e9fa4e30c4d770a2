import os
import pickle

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import pytest  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def op_library_current(tmp_path_factory):
    """The packaged custom-op library, current with its sources. `pip install -e .`
    (CI) builds it in place; a checkout run through PYTHONPATH whose library is
    missing or older than its C++ sources gets it built here once, the way
    `pip install -e .` would (the runtime itself never compiles): by one xdist
    worker while the other waits. Without a C++ compiler nothing is built, and
    the tests that need the op skip (op_cache)."""
    from keras_skim.litert_ops import native_build
    from tests.worker_cache import one_worker_at_a_time

    with one_worker_at_a_time(tmp_path_factory, "op_library"):
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
    train` (tiny data): name -> folder path; "sj" is a Structural-Jump-LSTM.
    Each kind is trained once for all xdist workers (tests/worker_cache.py)."""
    from keras_skim.cli.main import main
    from tests.tiny_data import use_tiny_rotten_tomatoes
    from tests.worker_cache import shared_folder

    cache = {}

    def train(name, root):
        with pytest.MonkeyPatch.context() as patch:
            use_tiny_rotten_tomatoes(patch, root)
            argv = SJ_TRAIN if name == "sj" else TRAIN + KINDS[name]
            assert main(argv + ["-o", str(root / name)]) == 0

    def get(name):
        if name not in cache:
            root = shared_folder(tmp_path_factory, f"trained_{name}", lambda root: train(name, root))
            cache[name] = str(root / name)
        return cache[name]

    return get


@pytest.fixture(scope="session")
def exported(trained_folder, tmp_path_factory):
    """Lazily exports (builtin backend) the real trained folders, with the
    tiny data at hand for parity on real texts: name -> (model file,
    export folder, ExportResult). Each export is made once for all xdist
    workers; the others read its ExportResult back from the export folder."""
    from keras_skim.export.exporter import export_model
    from tests.tiny_data import use_tiny_rotten_tomatoes
    from tests.worker_cache import shared_folder

    cache = {}

    def export(name, root):
        (root / "data").mkdir()
        with pytest.MonkeyPatch.context() as patch:
            use_tiny_rotten_tomatoes(patch, root / "data")
            result = export_model(trained_folder(name), str(root / f"{name}_export"), backend="builtin")
        with open(root / "result.pickle", "wb") as f:
            pickle.dump(result, f)

    def get(name):
        if name not in cache:
            root = shared_folder(tmp_path_factory, f"exported_{name}", lambda root: export(name, root))
            with open(root / "result.pickle", "rb") as f:
                result = pickle.load(f)
            cache[name] = (os.path.join(trained_folder(name), "model.keras"), str(root / f"{name}_export"), result)
        return cache[name]

    return get


@pytest.fixture(scope="session")
def custom_exported(trained_folder, tmp_path_factory):
    """Lazily exports the real trained folders with the custom-op backend
    (the op library must be built: callers skip first where it is not):
    name -> export folder. Each is made once for all xdist workers."""
    from keras_skim.export.exporter import export_model
    from tests.tiny_data import use_tiny_rotten_tomatoes
    from tests.worker_cache import shared_folder

    cache = {}

    def export(name, root):
        (root / "data").mkdir()
        with pytest.MonkeyPatch.context() as patch:
            use_tiny_rotten_tomatoes(patch, root / "data")
            export_model(trained_folder(name), str(root / f"{name}_custom"), backend="custom")

    def get(name):
        if name not in cache:
            root = shared_folder(tmp_path_factory, f"custom_exported_{name}", lambda root: export(name, root))
            cache[name] = str(root / f"{name}_custom")
        return cache[name]

    return get


@pytest.fixture
def sigint_handler():
    """Sets SIGINT's handler for a test (pytest may run in the background of a
    shell, where SIGINT starts ignored) and puts back the one it found."""
    import signal

    found = signal.getsignal(signal.SIGINT)
    yield lambda handler: signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGINT, found)


@pytest.fixture(autouse=True)
def _seeded():
    import keras

    keras.utils.set_random_seed(1234)
    yield
    # Keras' global state and TensorFlow's default graph and kernel cache are reset after every
    # test; Python's full garbage collection is not (`free_memory=False`): it cost 0.37-0.40 s of
    # CPU per test with TensorFlow loaded (2026-11-26), minutes over the suite, and Python's own
    # collector still frees the cycles as the tests allocate.
    keras.backend.clear_session(free_memory=False)


# The test files that took longest, heaviest first (summed durations of
# `python -m pytest -q -n 2 --dist loadfile tests --durations=0` on 2026-11-27, 1,346 s in all).
# They run first so that two xdist workers share them and the many light files
# fill in at the end, rather than one worker starting a long file as the other
# runs out of work (longest-first scheduling). Files not listed keep their order.
HEAVY_FILES_FIRST = (
    "tests/test_readme.py",
    "tests/notebooks/test_notebooks.py",
    "tests/training/test_structural_jump_lstm.py",
    "tests/export/test_structural_jump_export.py",
    "tests/android/test_aarch64_check.py",
    "tests/android/test_jump_model.py",
    "tests/export/test_skim_cores.py",
    "tests/cli/test_structural_jump_cli.py",
    "tests/export/test_export_graph.py",
    "tests/training/test_skim_loss.py",
    "tests/export/test_stacked_export.py",
    "tests/training/test_skim_loss_settings.py",
    "tests/layers/test_skim_fast_loop.py",
    "tests/layers/test_skim_serialization.py",
    "tests/cli/test_own_data.py",
    "tests/android/test_metadata_and_assets.py",
    "tests/export/test_sj_lstm_core.py",
    "tests/export/test_skim_gru_op.py",
    "tests/android/test_core_with_jni_shim.py",
    "tests/cli/test_cli_commands.py",
)


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(HEAVY_FILES_FIRST)}

    def file_rank(item):
        return rank.get(item.nodeid.split("::", 1)[0], len(rank))

    items.sort(key=file_rank)  # stable: the order within a file and among the rest is kept
