import pytest


@pytest.fixture(scope="module")
def op_cache():
    """The packaged custom-op library's path (built by `pip install -e .`, kept
    current by tests/conftest.py); skips only where no C++ compiler could
    have built it."""
    from keras_skim import litert_ops
    from keras_skim.litert_ops import native_build

    if native_build.compiler() is None and not native_build.is_current():
        pytest.skip("no C++ compiler: the custom-op library was not built")
    return litert_ops.library_path()
