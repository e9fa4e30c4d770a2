"""The Structural-Jump family's exporter (`model_kinds.FAMILIES`): the one
place `keras_skim.export` reaches its pieces through
(`family_exporter.exporter_of`): its planner (`structural_jump_emitter`),
its builtin loop that advances by the jump (`structural_jump_graph`), its
`KerasSjLSTM` op (`structural_jump_op`), its metadata entries
(`structural_jump_metadata`), its parity reference
(`structural_jump_parity`) and its benchmark table for the default
backend's note."""

from keras_skim.export.family_exporter import FamilyExporter
from keras_skim.models.structural_jump.structural_jump_emitter import (
    CELL_CLASS,
    MODEL_CLASS,
    is_structural_jump,
    plan_structural_jump,
)


class StructuralJumpExporter(FamilyExporter):
    cell_refusals = {
        CELL_CLASS: f"a {CELL_CLASS} is exported only inside a keras_skim.{MODEL_CLASS} model "
        "(which computes the word stream and the jump offsets from the token ids)"
    }
    speed_tables = {"structural_jump_lstm": "benchmarks/results/sj_export_speed.md"}
    quantizes = ("custom",)  # the builtin graph's int8 kernels quantize activations too, moving the agents' decisions
    threshold_note = "--threshold ignored: a Structural-Jump-LSTM's agents decide what is read"
    writes_custom_op = True

    def planners(self):
        return ((is_structural_jump, plan_structural_jump),)

    def builtin_graph(self, plan):
        from keras_skim.models.structural_jump.structural_jump_graph import build_module

        return build_module

    def custom_op_flatbuffer(self, plan, *, length, fold, quantize=None):
        from keras_skim.models.structural_jump.structural_jump_op import structural_jump_flatbuffer

        return structural_jump_flatbuffer(plan, length=length, fold=fold, quantize=quantize)

    def int8_op_reference(self, plan, settings):
        from keras_skim.models.structural_jump.structural_jump_op_reference import int8_reference

        return int8_reference(plan, settings)

    def flops_section(self, plan):
        from keras_skim.models.structural_jump.structural_jump_metadata import structural_jump_flops_section

        return structural_jump_flops_section(plan)

    def add_metadata_entries(self, plan, metadata):
        from keras_skim.models.structural_jump.structural_jump_metadata import add_structural_jump_entries

        add_structural_jump_entries(plan, metadata)

    def keras_reference(self, model, plan):
        from keras_skim.models.structural_jump.structural_jump_parity import structural_jump_reference

        return structural_jump_reference(model)


EXPORTER = StructuralJumpExporter()
