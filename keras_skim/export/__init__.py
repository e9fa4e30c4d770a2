"""Export trained keras-skim models to TFLite (LiteRT) with builtin ops only.

Modules: `model_plan` (reads the Keras model), `emitter_registry` with
`lstm_emitters` / `gru_emitters` (one per layer kind), `graph_builder` (the
argmax-free gated loop and the conversion), `structural_jump_emitter` /
`structural_jump_graph` / `structural_jump_op` (Structural-Jump-LSTM: its
plan, its builtin loop that advances by the jump, its KerasSjLSTM op),
`custom_op_backend` and `flatbuffer_writer` (the custom-op exports),
`parity` (Keras vs TFLite), `metadata` and `exporter` (`export_model`;
the operators it records are read by the runtime's TFLite schema reader,
`keras_skim.runtime.tflite_check.op_inventory`).
"""

from keras_skim.export.errors import ExportError


def export_model(*args, **kwargs):
    from keras_skim.export.exporter import export_model as run

    return run(*args, **kwargs)


__all__ = ["ExportError", "export_model"]
