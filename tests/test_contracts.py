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
        ('{"arguments": {"max_length": 0}}', "integer from 1"),
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


def _metadata(**changes):
    record = {
        "format": contracts.METADATA_FORMAT,
        "version": contracts.METADATA_VERSION,
        "model_kind": "skim_lstm",
        "vocabulary_size": 50,
        "num_classes": 1,
        "max_length": 30,
        "default_threshold": 0.5,
        "flops": {"baseline_flops_per_token": 10, "read_flops_per_token": 11, "skim_flops_per_token": 2},
    }
    record.update(changes)
    return record


# (file, record with one bad field, the key the one line must name)
BAD_FIELDS = [
    ("metadata", _metadata(max_length="abc"), '"max_length"'),
    ("metadata", _metadata(max_length=-5), '"max_length"'),
    ("metadata", _metadata(max_length=[1]), '"max_length"'),
    ("metadata", _metadata(max_length=1e12), '"max_length"'),
    ("metadata", _metadata(max_length=2**31), '"max_length"'),
    ("metadata", _metadata(max_length=True), '"max_length"'),
    ("metadata", _metadata(vocabulary_size=0), '"vocabulary_size"'),
    ("metadata", _metadata(vocabulary_size=-1), '"vocabulary_size"'),
    ("metadata", _metadata(vocabulary_size=10**9), '"vocabulary_size"'),
    ("metadata", _metadata(vocabulary_size=50.0), '"vocabulary_size"'),
    ("metadata", _metadata(default_threshold="abc"), '"default_threshold"'),
    ("metadata", _metadata(default_threshold=float("nan")), '"default_threshold"'),
    ("metadata", _metadata(default_threshold=-1), '"default_threshold"'),
    ("metadata", _metadata(flops="abc"), '"flops"'),
    ("metadata", _metadata(flops={"read_flops_per_token": "abc"}), '"flops"."read_flops_per_token"'),
    ("metadata", _metadata(num_classes=0), '"num_classes"'),
    ("metadata", _metadata(backend="gpu"), '"backend"'),
    ("metadata", _metadata(custom_ops="KerasSkimLSTM"), '"custom_ops"'),
    ("metadata", _metadata(model_kind="structural_jump_lstm", units=None), '"units"'),
    ("metadata", {k: v for k, v in _metadata().items() if k != "vocabulary_size"}, '"vocabulary_size"'),
    ("train_config", {"arguments": {"max_length": 2**31}}, '"arguments"."max_length"'),
    ("train_config", {"arguments": {"max_length": 10**12}}, '"arguments"."max_length"'),
    ("train_config", {"arguments": {"seed": -1}}, '"arguments"."seed"'),
    ("train_config", {"arguments": {"dataset": 5}}, '"arguments"."dataset"'),
    ("train_config", {"arguments": {}, "data": {"classes": "ab"}}, '"data"."classes"'),
    ("train_config", {"arguments": {}, "data": {"split": {"seed": "x"}}}, '"data"."split"."seed"'),
]


@pytest.mark.parametrize(
    "kind, record, key", BAD_FIELDS, ids=[f"{k}-{key}-{i}" for i, (k, _, key) in enumerate(BAD_FIELDS)]
)
def test_every_contract_field_is_typed(tmp_path, kind, record, key):
    """A wrong type or range in metadata.json / train_config.json is one
    line naming the file and the key (json.dumps writes NaN as NaN)."""
    path = tmp_path / f"{kind}.json"
    path.write_text(json.dumps(record))
    reader = contracts.read_metadata if kind == "metadata" else contracts.read_train_config
    with pytest.raises(contracts.ContractError) as info:
        reader(path)
    message = str(info.value)
    assert message.startswith(str(path)) and key in message and "\n" not in message, message


def test_tokenizer_fields_are_typed(tmp_path):
    from keras_skim.datasets.tokenizer import Tokenizer

    good = Tokenizer(vocabulary=["<pad>", "<unk>", "good"], max_length=30).to_config()
    path = tmp_path / "tokenizer.json"
    for key, value in (
        ("max_length", float("inf")),
        ("max_length", [30]),
        ("max_length", "30"),
        ("max_length", 0),
        ("max_length", 2**40),
        ("vocabulary", {"a": 1}),
        ("vocabulary", ["<pad>", "<unk>", 7]),
    ):
        path.write_text(json.dumps({**good, key: value}))
        with pytest.raises(ValueError) as info:
            Tokenizer.load(path)
        message = str(info.value)
        assert str(path) in message and f'"{key}"' in message and "\n" not in message, message
    path.write_text(json.dumps(good))
    assert Tokenizer.load(path).max_length == 30


@pytest.mark.parametrize("kind", ["metadata", "train_config", "tokenizer"])
def test_deeply_nested_json_is_one_line(tmp_path, kind):
    from keras_skim.datasets.tokenizer import Tokenizer

    path = tmp_path / f"{kind}.json"
    for depth in (100, 100_000):  # under and over the interpreter's recursion limit
        path.write_text('{"arguments": ' + "[" * depth + "]" * depth + "}")
        reader = {
            "metadata": contracts.read_metadata,
            "train_config": contracts.read_train_config,
            "tokenizer": Tokenizer.load,
        }[kind]
        with pytest.raises(ValueError, match="nested deeper") as info:
            reader(path)
        assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_endless_and_huge_files_are_refused_with_bounded_memory(tmp_path):
    import resource

    from keras_skim.contract_fields import MAX_JSON_BYTES
    from keras_skim.datasets.tokenizer import Tokenizer

    link = tmp_path / "metadata.json"
    link.symlink_to("/dev/zero")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(contracts.ContractError, match="is a character device, not a regular file"):
        contracts.read_metadata(link)
    tokenizer = tmp_path / "tok" / "tokenizer.json"
    tokenizer.parent.mkdir()
    tokenizer.symlink_to("/dev/zero")
    with pytest.raises(ValueError, match="not a regular file"):
        Tokenizer.load(tokenizer)
    # At most one limit's worth was read (ru_maxrss is in kB).
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 3 * MAX_JSON_BYTES / 1024
    big = tmp_path / "train_config.json"
    with open(big, "wb") as f:
        f.truncate(MAX_JSON_BYTES + 1)  # sparse: refused from its size, never read
    with pytest.raises(contracts.ContractError, match="larger than"):
        contracts.read_train_config(big)


def test_a_fifo_as_a_contract_file_is_refused_without_waiting_for_a_writer(tmp_path):
    # Issue 30, row 5: opening a FIFO blocks until a writer comes; it is refused unopened.
    fifo = tmp_path / "metadata.json"
    os.mkfifo(fifo)
    with pytest.raises(contracts.ContractError, match="metadata.json: is a FIFO .named pipe., not a regular file"):
        contracts.read_metadata(fifo)


def test_a_fifo_or_device_is_named_for_what_it_is_not_missing(tmp_path):
    # Issue 30: /dev/zero and FIFOs were reported as "no such file".
    fifo = tmp_path / "model.tflite"
    os.mkfifo(fifo)
    with pytest.raises(contracts.ContractError, match="model.tflite: is a FIFO .named pipe., not a regular file"):
        contracts.resolve_export(fifo)
    with pytest.raises(contracts.ContractError, match="/dev/zero: is a character device, not a regular file"):
        contracts.tokenizer_file("/dev/zero")
    with pytest.raises(contracts.ContractError, match="no such file"):
        contracts.resolve_export(tmp_path / "missing.tflite")
