"""The model-kind table against the parts that must agree with it: the exporter's emitters, the op
library's table, the metadata reader and the runtime's questions."""

import json

import pytest

from keras_skim import contracts
from keras_skim.model_kinds import CUSTOM_OPS, KINDS, kind_of


def test_every_exported_kind_is_in_the_table():
    from keras_skim.export import emitter_registry
    from keras_skim.models.structural_jump.structural_jump_emitter import StructuralJumpEmitter

    emitter_registry.known_cells()  # loads every emitter module
    exported = {cls.model_kind for cls in emitter_registry._EMITTERS.values()} | {StructuralJumpEmitter.model_kind}
    assert exported == set(KINDS)


def test_the_op_library_registers_the_table_s_ops_in_its_order():
    from keras_skim.litert_ops import op_names

    assert op_names() == list(CUSTOM_OPS.values())
    assert contracts.CUSTOM_OPS is CUSTOM_OPS


def test_what_each_kind_does():
    assert kind_of("skim_lstm").threshold_applies and not kind_of("skim_lstm").jumps
    assert kind_of({"model_kind": "structural_jump_lstm"}).jumps
    assert not kind_of("structural_jump_lstm").threshold_applies
    assert kind_of("lstm").custom_op is None and kind_of("skim_gru").custom_op == "KerasSkimGRU"
    assert set(kind_of("structural_jump_lstm").mask_codes) == set(contracts.TOKEN_CODES)
    with pytest.raises(ValueError, match="unknown model_kind 'bert'"):
        kind_of("bert")


def test_metadata_of_an_unknown_kind_is_refused_in_one_line(tmp_path):
    path = tmp_path / "metadata.json"
    record = {
        "format": contracts.METADATA_FORMAT,
        "version": contracts.METADATA_VERSION,
        "model_kind": "bert",
        "vocabulary_size": 10,
        "num_classes": 2,
    }
    path.write_text(json.dumps(record))
    with pytest.raises(ValueError) as err:
        contracts.read_metadata(str(path))
    message = str(err.value)
    assert "\n" not in message and str(path) in message and "model_kind" in message and "'skim_lstm'" in message


def test_every_cli_kind_names_its_family_s_pieces():
    from keras_skim.model_kinds import CLI_KINDS, FAMILIES, cli_kind, family_of, load

    assert cli_kind("sj-lstm").name == "structural_jump_lstm" and cli_kind("skim-gru").name == "skim_gru"
    assert {kind.family for kind in KINDS.values()} == set(FAMILIES)
    for cell, kind in CLI_KINDS.items():
        assert kind.cli_name == cell and KINDS[kind.name] is kind
        commands = load(family_of(kind).commands)
        assert all(callable(getattr(commands, name)) for name in ("add_arguments", "check", "train", "refusal"))
    with pytest.raises(ValueError, match="unknown cell 'bert'"):
        cli_kind("bert")


def test_every_import_path_of_the_table_loads():
    from keras_skim.export.family_exporter import FamilyExporter
    from keras_skim.model_kinds import FAMILIES, load

    for family in FAMILIES.values():
        assert callable(load(family.trainer)), family.trainer
        assert load(family.exporter).__name__ == family.exporter
        exporter = load(family.exporter).EXPORTER
        assert isinstance(exporter, FamilyExporter), family.exporter
        # a family's speed tables are its own kinds'
        assert all(KINDS[kind].family == family.name for kind in exporter.speed_tables), family.exporter
        if family.flop_report:
            assert callable(load(family.flop_report))


def test_a_loaded_model_s_family_comes_from_its_registered_class():
    import keras

    from keras_skim.model_kinds import FAMILIES, family_of_model_class
    from keras_skim.models.structural_jump.structural_jump_lstm import StructuralJumpLSTM

    jump = [f for f in FAMILIES.values() if f.model_class]
    assert [family_of_model_class(keras.saving.get_registered_name(StructuralJumpLSTM))] == jump
    assert family_of_model_class("Functional") is FAMILIES["text_classifier"]


def test_every_kind_s_import_paths_load():
    # The engines reach a family's cells, emitters, cell ops and gate only through these paths.
    import inspect

    from keras_skim.export import emitter_registry
    from keras_skim.model_kinds import FAMILIES, load, skim_gate

    for kind in KINDS.values():
        for path in (kind.cell_class, kind.layer):
            assert path is None or inspect.isclass(load(path)), path
        if kind.emitter:
            load(kind.emitter)
            assert emitter_registry._EMITTERS[kind.cell_class.rpartition(":")[2]].model_kind == kind.name
        if kind.cell_op:
            op = load(kind.cell_op)
            assert all(callable(getattr(op, name)) for name in ("op_model", "op_flatbuffer", "int8_reference"))
            assert kind.name in op.SPEED_TABLES and kind.custom_op
        assert bool(kind.gate) == kind.skims, kind.name
    gate = skim_gate()
    assert all(callable(getattr(gate, name)) for name in ("gated_cells", "is_gated", "read_decision", "flop_kind"))
    for family in FAMILIES.values():
        assert family.train_function is None or callable(load(family.train_function))
        assert bool(family.model_module) == bool(family.model_class), family.name
        if family.model_module:  # the module registers the class a loaded model is recognised by
            import keras

            load(family.model_module)
            assert keras.saving.get_registered_object(family.model_class) is not None
