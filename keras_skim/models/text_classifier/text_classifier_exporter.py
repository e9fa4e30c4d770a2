"""The text classifier family's exporter (`model_kinds.FAMILIES`): its cells
are the emitter registry's (`emitter_registry`), its graphs and ops the
generic ones; it plans float-sequence models itself (`sequence_input`), and
its skim kinds' ops have benchmark tables for the default backend's note."""

from keras_skim.export.family_exporter import FamilyExporter


class TextClassifierExporter(FamilyExporter):
    # Where each skim kind's op and builtin graph were timed against
    # keras-skim's builtin LSTM export of the same size.
    speed_tables = {
        "skim_lstm": "benchmarks/results/custom_op_speed.md",
        "skim_gru": "benchmarks/results/skim_gru_op_speed.md",
    }

    def planners(self):
        from keras_skim.export.sequence_input import plan_sequence_model, recognise

        return ((recognise, plan_sequence_model),)


EXPORTER = TextClassifierExporter()
