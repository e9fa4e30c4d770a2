"""The text classifier family's exporter (`model_kinds.FAMILIES`): its cells
are the emitter registry's (`emitter_registry`), its graphs and ops the
generic ones; it plans float-sequence models itself (`sequence_input`), and
its skim kinds' ops have measured speeds for the default backend's note."""

from keras_skim.export.family_exporter import FamilyExporter


class TextClassifierExporter(FamilyExporter):
    # Speed-ups over keras-skim's builtin LSTM export of the same size, (custom op,
    # builtin graph), batch 1, one thread, by units; with the table they come from
    # and where in it (the ~80% skim rows: a trained Skim-LSTM skims 82-95%).
    measured_speeds = {
        "skim_lstm": (
            "benchmarks/results/custom_op_speed.md",
            "80% skim",
            {100: (4.24, 0.75), 256: (4.08, 1.52), 512: (5.30, 3.44)},
        ),
        "skim_gru": ("benchmarks/results/skim_gru_op_speed.md", "80% skim", {100: (4.22, 0.76)}),
    }

    def planners(self):
        from keras_skim.export.sequence_input import plan_sequence_model, recognise

        return ((recognise, plan_sequence_model),)


EXPORTER = TextClassifierExporter()
