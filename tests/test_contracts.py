"""keras_skim.contracts: the model and export folders' files (output
folders: tests/test_output_folder.py)."""

import json
import os

import pytest

from keras_skim import contracts


def test_tokenizer_file_gets_umask_permissions(tmp_path):
    from keras_skim.datasets.tokenizer import Tokenizer

    old = os.umask(0o022)
    try:
        path = Tokenizer().fit(["a b c"]).save(tmp_path)
    finally:
        os.umask(old)
    assert oct(path.stat().st_mode & 0o777) == oct(0o644)


def test_train_config_and_metadata_readers(tmp_path):
    path = tmp_path / "train_config.json"
    path.write_text(json.dumps(contracts.train_config_record({"dataset": "imdb", "max_length": 200}, test={})))
    config = contracts.read_train_config(path)
    assert (config.dataset, config.max_length) == ("imdb", 200)
    assert config.as_dict() == json.loads(path.read_text())
    for text, message in (
        ("{", "not valid JSON"),
        ("[]", "JSON object"),
        ('{"max_length": 30}', "arguments"),
        ('{"arguments": {"max_length": 0}}', "positive integer"),
    ):
        path.write_text(text)
        with pytest.raises(contracts.ContractError, match=message) as info:
            contracts.read_train_config(path)
        assert str(path) in str(info.value) and "\n" not in str(info.value)
    meta = tmp_path / "metadata.json"
    meta.write_text(json.dumps({"format": "other"}))
    with pytest.raises(contracts.ContractError, match="not keras_skim.export"):
        contracts.read_metadata(meta)


def test_threshold_rule():
    assert contracts.threshold_cut(0.0) == -float("inf") and contracts.threshold_cut(1.0) == float("inf")
    assert contracts.threshold_cut(0.5) == 0.0 and contracts.threshold_cut(0.7) > contracts.threshold_cut(0.3)
    for bad in (float("nan"), -1.0, float("inf"), "x", True):
        with pytest.raises(contracts.ContractError):
            contracts.check_threshold(bad)
