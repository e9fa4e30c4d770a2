"""The skim cells' custom ops (`KerasSkimLSTM`, `KerasSkimGRU`) as the
custom-op backend asks for them: the table's `ModelKind.cell_op` of the
Skim-RNN kinds. The backend (`keras_skim.export.custom_op_backend`) checks
the model's form and calls these; the op's weights are packed by
`skim_op_weights`, its file written by `skim_op_flatbuffer`, and an int8
export is checked against the op's NumPy arithmetic on its dequantized
weights (`skim_op_reference`).
"""

from keras_skim.models.skim_rnn.skim_op_flatbuffer import skim_op_flatbuffer
from keras_skim.models.skim_rnn.skim_op_reference import op_reference
from keras_skim.models.skim_rnn.skim_op_weights import quantized_weights, should_fold, skim_op_model

# Where each kind's op and builtin graph were timed against keras-skim's builtin LSTM export of the same size
# (the default backend's note names the table, `FamilyExporter.speed_tables`; the figures live only there).
SPEED_TABLES = {
    "skim_lstm": "benchmarks/results/custom_op_speed.md",
    "skim_gru": "benchmarks/results/skim_gru_op_speed.md",
}


def op_model(plan):
    """What the op needs of a single-layer skim `plan` (`skim_op_weights.skim_op_model`)."""
    return skim_op_model(plan)


def op_flatbuffer(info, threshold, length, fold=None, quantize=None):
    """The .tflite bytes of the op's model `info`; `fold=None` folds only
    when that does not grow the model (`skim_op_weights.should_fold`)."""
    fold = should_fold(info) if fold is None else bool(fold)
    return skim_op_flatbuffer(info, threshold, length, fold=fold, quantize=quantize)


def int8_reference(info, settings):
    """The parity reference of an int8 export of the op's model `info`
    (`settings`: its file's description): (ids [1, T], threshold) ->
    (outputs, read decisions [T]), the op's arithmetic on its dequantized
    weights."""
    ops = quantized_weights(info, fold=settings["folded"], quantize=settings["quantize"])

    def reference(batch, threshold):
        return op_reference(info, ops, batch[0], threshold)

    return reference
