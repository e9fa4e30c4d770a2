"""keras_skim.contracts: the model and export folders' files, and output
folders that never lose what keras-skim did not write."""

import json
import os

import pytest

from keras_skim import contracts


def test_staged_folder_has_the_marker_and_umask_permissions(tmp_path):
    old = os.umask(0o022)
    try:
        with contracts.staged_output_dir(tmp_path / "out") as stage:
            with open(os.path.join(stage, "a.json"), "w") as f:
                f.write("{}")
    finally:
        os.umask(old)
    out = tmp_path / "out"
    assert contracts.is_keras_skim_output(out)
    assert json.loads((out / contracts.MARKER_FILE).read_text())["written_by"] == "keras-skim"
    assert oct(out.stat().st_mode & 0o777) == oct(0o755)
    assert oct((out / "a.json").stat().st_mode & 0o777) == oct(0o644)


def test_tokenizer_file_gets_umask_permissions(tmp_path):
    from keras_skim.datasets.tokenizer import Tokenizer

    old = os.umask(0o022)
    try:
        path = Tokenizer().fit(["a b c"]).save(tmp_path)
    finally:
        os.umask(old)
    assert oct(path.stat().st_mode & 0o777) == oct(0o644)


def test_failed_block_leaves_nothing_and_keeps_the_old_folder(tmp_path):
    with contracts.staged_output_dir(tmp_path / "out") as stage:
        open(os.path.join(stage, "v1"), "w").close()
    with pytest.raises(RuntimeError):
        with contracts.staged_output_dir(tmp_path / "out", force=True) as stage:
            open(os.path.join(stage, "v2"), "w").close()
            raise RuntimeError("boom")
    assert sorted(os.listdir(tmp_path / "out")) == sorted([contracts.MARKER_FILE, "v1"])
    assert [p for p in os.listdir(tmp_path) if p.startswith(".keras-skim")] == []


def test_force_rules(tmp_path, monkeypatch):
    check = contracts.check_output_folder
    user = tmp_path / "user"
    user.mkdir()
    (user / "notes.txt").write_text("mine")
    with pytest.raises(contracts.OutputRefused, match="already exists"):
        check(user)
    with pytest.raises(contracts.OutputRefused, match="did not write"):
        check(user, force=True)
    (tmp_path / "empty").mkdir()
    check(tmp_path / "empty", force=True)  # an empty folder may be replaced
    (tmp_path / "file").write_text("x")
    with pytest.raises(contracts.OutputRefused, match="not a folder keras-skim wrote"):
        check(tmp_path / "file", force=True)
    model = tmp_path / "run" / "model.keras"
    model.parent.mkdir()
    model.write_text("x")
    for target in (tmp_path / "run", tmp_path):
        with pytest.raises(contracts.OutputRefused, match="input"):
            check(target, force=True, inputs=[model])
    check(tmp_path / "run" / "export", inputs=[model])  # a new folder inside the input's is fine
    monkeypatch.chdir(tmp_path / "run")
    for target in (".", "..", "/", os.path.expanduser("~")):
        with pytest.raises(contracts.OutputRefused, match="refusing"):
            check(target, force=True)
    assert (user / "notes.txt").read_text() == "mine" and model.read_text() == "x"


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
