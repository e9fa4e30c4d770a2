"""`metadata.json` as one typed record (`keras_skim.metadata_record.ExportMetadata`, issue 17):
round trips, checks by field, and the fallbacks of exports written before class names and the
threshold-free signature (issue 19)."""

import json

import pytest

from keras_skim import contracts
from keras_skim.contracts import ExportMetadata, FlopCounts, TensorInfo


def _record(**changes):
    fields = dict(
        model_kind="skim_lstm",
        units=8,
        small_units=2,
        embedding_dim=4,
        vocabulary_size=50,
        num_classes=1,
        class_names=["neg", "pos"],
        inputs={"token_ids": TensorInfo([1, -1], "int32"), "threshold": TensorInfo([], "float32", default=0.5)},
        outputs={"read_mask": TensorInfo([1, -1], "int32", codes={"0": "skimmed", "1": "read"})},
        flops=FlopCounts(kind="skim_lstm", baseline_flops_per_token=10, read_flops_per_token=11),
    )
    fields.update(changes)
    return ExportMetadata(**fields)


def test_round_trip_through_the_file(tmp_path):
    record = _record()
    data = record.to_json()
    data["written_by_a_newer_version"] = {"x": 1}
    path = tmp_path / "metadata.json"
    path.write_text(json.dumps(data))
    again = contracts.read_metadata(path)
    assert again == ExportMetadata.from_json(data) and again.to_json() == data
    assert again.extra == {"written_by_a_newer_version": {"x": 1}}
    assert again.inputs["threshold"].default == 0.5 and again.flops.read_flops_per_token == 11
    assert again.flops.to_json()["skim_flops_per_token"] is None  # written, null: never skims
    assert data["version"] == contracts.METADATA_VERSION and data["format"] == contracts.METADATA_FORMAT
    assert again["units"] == 8 and again.get("nothing", 3) == 3  # the dict it used to be


def test_class_names_and_their_fallback():
    assert [_record().class_name(i) for i in (0, 1)] == ["neg", "pos"]
    old = _record(class_names=None)
    assert [old.class_name(i) for i in (0, 1, 2)] == ["class 0", "class 1", "class 2"]
    wrong = _record(class_names=["a", "b", "c"])  # not max(num_classes, 2) names: not used
    assert wrong.class_name(0) == "class 0"


def test_threshold_input_by_version_and_kind():
    assert _record().takes_threshold
    lstm = _record(model_kind="lstm", inputs={"token_ids": TensorInfo([1, -1], "int32")})
    assert not lstm.takes_threshold
    # version 2: every kind had a threshold input
    assert ExportMetadata(model_kind="lstm", vocabulary_size=5, num_classes=2, version=2).takes_threshold
    assert not ExportMetadata(model_kind="structural_jump_lstm", vocabulary_size=5, num_classes=2).takes_threshold


@pytest.mark.parametrize(
    "change, key",
    [
        ({"class_names": "neg"}, '"class_names"'),
        ({"inputs": {"token_ids": {"dtype": 5}}}, '"inputs"."token_ids"."dtype"'),
        ({"outputs": {"read_mask": {"codes": []}}}, '"outputs"."read_mask"."codes"'),
        ({"flops": {"lstm_flops": "many"}}, '"flops"."lstm_flops"'),
    ],
)
def test_bad_fields_are_one_line_naming_the_key(tmp_path, change, key):
    data = dict(_record().to_json(), **change)
    path = tmp_path / "metadata.json"
    path.write_text(json.dumps(data))
    with pytest.raises(contracts.ContractError) as info:
        contracts.read_metadata(path)
    assert key in str(info.value) and str(path) in str(info.value) and "\n" not in str(info.value)


def test_reading_positions_status_is_the_export_code_table():
    from keras_skim.models.structural_jump import structural_jump_statistics as s

    assert (s.SKIPPED_WORD, s.READ_WORD, s.JUMPED_WORD, s.NOT_A_WORD) == (
        contracts.TOKEN_SKIMMED,
        contracts.TOKEN_READ,
        contracts.TOKEN_JUMPED,
        contracts.TOKEN_NOT_A_WORD,
    )


def test_input_kind_and_the_fields_each_kind_needs(tmp_path):
    sequence = _record(
        model_kind="scornn",
        vocabulary_size=None,
        input_kind=contracts.INPUT_KIND_SEQUENCE,
        feature_dim=1,
        inputs={"sequence": TensorInfo([1, 16, 1], "float32")},
    )
    data = sequence.to_json()
    assert data["input_kind"] == "sequence" and data["feature_dim"] == 1
    again = ExportMetadata.from_json(data)
    assert again.takes_sequence and not again.takes_threshold and again.vocabulary_size is None
    assert not _record().takes_sequence and "input_kind" not in _record().to_json()  # older exports: token ids
    for change, key in (({"feature_dim": None}, '"feature_dim"'), ({"input_kind": "pixels"}, '"input_kind"')):
        path = tmp_path / "metadata.json"
        path.write_text(json.dumps(dict(data, **change)))
        with pytest.raises(contracts.ContractError, match=key):
            contracts.read_metadata(path)
    path.write_text(json.dumps(dict(_record().to_json(), vocabulary_size=None)))
    with pytest.raises(contracts.ContractError, match='"vocabulary_size"'):
        contracts.read_metadata(path)
