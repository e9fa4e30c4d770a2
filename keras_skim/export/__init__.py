"""Export trained keras-skim models to TFLite (LiteRT): a graph of builtin
ops, or one custom op per model kind.

Modules: `plan` (reads the Keras model into a `ModelPlan` once per
export, which both backends, the metadata and the parity check build
from), `emitter_registry` with `lstm_emitters` / `gru_emitters` (a
family's cells have theirs in its folder, named by the model-kind table:
`ModelKind.emitter`), `graph_builder` (the
argmax-free gated loop and the conversion), `family_exporter` (the seam
each model family's exporter module fills, named in
`keras_skim.model_kinds`: its planner, graph, op, metadata and parity
pieces live in that family's own modules), `custom_op_backend` with the
cells' ops (`ModelKind.cell_op`) and `flatbuffer_writer` (the custom-op
exports),
`parity` (Keras vs TFLite), `metadata`, `export_options` (`ExportOptions`,
an export's checked settings) and `exporter` (`export_model`;
the operators it records are read by the runtime's TFLite schema reader,
`keras_skim.runtime.tflite_check.op_inventory`).
"""

from keras_skim.export.errors import ExportError


def export_model(*args, **kwargs):
    from keras_skim.export.exporter import export_model as run

    return run(*args, **kwargs)


__all__ = ["ExportError", "export_model"]
