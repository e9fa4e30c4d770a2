"""The text classifier family's exporter (`model_kinds.FAMILIES`): its cells
are the emitter registry's (`emitter_registry`), its graphs and ops the
generic ones; it plans float-sequence models itself (`sequence_input`), and
the cell ops of its kinds (`ModelKind.cell_op`) name the benchmark tables of
the default backend's note."""

from keras_skim.export.family_exporter import FamilyExporter
from keras_skim.model_kinds import KINDS, load

FAMILY = "text_classifier"


class TextClassifierExporter(FamilyExporter):
    @property
    def speed_tables(self):
        """The `SPEED_TABLES` of the cell ops of the family's kinds, in table order."""
        tables = {}
        for path in dict.fromkeys(kind.cell_op for kind in KINDS.values() if kind.family == FAMILY and kind.cell_op):
            tables.update(load(path).SPEED_TABLES)
        return tables

    def planners(self):
        from keras_skim.export.sequence_input import plan_sequence_model, recognise

        return ((recognise, plan_sequence_model),)


EXPORTER = TextClassifierExporter()
