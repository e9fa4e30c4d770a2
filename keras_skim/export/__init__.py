"""Export trained keras-skim models to TFLite (LiteRT): a graph of builtin
ops, or one custom op per model kind.

`keras_skim.export(model_or_path, output_dir, ...)` is the entry point (this
package is callable: it runs `export`); `keras_skim.export.export_model`
is the same exporter with every option of `keras-skim export` (`fold`,
`tokenizer_path`).

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

from __future__ import annotations

import os
import sys
import types
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from keras_skim.export.errors import ExportError

if TYPE_CHECKING:
    from keras_skim.datasets.tokenizer import Tokenizer
    from keras_skim.export.exporter import ExportResult


def export_model(*args: Any, **kwargs: Any) -> ExportResult:
    """`keras_skim.export.exporter.export_model` (imported on first use:
    it needs Keras and TensorFlow, this package does not)."""
    from keras_skim.export.exporter import export_model as run

    return run(*args, **kwargs)


def export(
    model_or_path: Any,
    output_dir: str | os.PathLike[str] | None = None,
    tokenizer: Tokenizer | str | os.PathLike[str] | None = None,
    backend: str = "auto",
    quantize: str | None = None,
    *,
    threshold: float | None = None,
    parity_samples: int = 4,
    parity_texts: Sequence[str] | None = None,
    force: bool = False,
    log: Callable[[str], None] | None = None,
) -> ExportResult:
    """Exports a keras-skim model to a LiteRT export folder (`model.tflite`,
    `metadata.json`, `tokenizer.json`), written only if the TFLite model
    gives the Keras model's outputs and read decisions (the parity check).

    `keras_skim.export(...)` calls this function.

    Example:

    ```python
    import keras_skim

    result = keras_skim.export(model, "my_export", tokenizer=tokenizer)
    runner = keras_skim.runtime.SkimRunner(result.output_dir)
    ```

    Args:
        model_or_path: a `keras.Model` in memory, a model folder from
            `keras-skim train`, or a `.keras` / `.h5` file.
        output_dir: the export folder (a path export defaults to
            `<model>_tflite` next to it; a model in memory needs one).
        tokenizer: a `keras_skim.datasets.Tokenizer` or a tokenizer.json (or
            its folder); default: a path's sibling tokenizer.json. A text
            model in memory without one exports taking token ids only.
        backend: "auto", "builtin" (builtin ops only) or "custom" (one
            custom op per model kind).
        quantize: None (float32) or "int8".
        threshold: the default read threshold the metadata records.
        parity_samples: inputs of the parity check.
        parity_texts: texts the parity check runs first (with the
            tokenizer); default: the recorded training data's test texts
            when at hand (a path export), else random token ids.
        force: replace an export folder keras-skim wrote before.
        log: callable(str) for progress lines.

    Returns:
        An `ExportResult` (`output_dir`, `files`, `metadata`, `parity`, `notes`).

    Raises:
        ExportError: one-line reason; nothing is written then.
    """
    return export_model(
        model_or_path,
        output_dir,
        tokenizer=tokenizer,
        backend=backend,
        quantize=quantize,
        threshold=threshold,
        parity_samples=parity_samples,
        parity_texts=parity_texts,
        force=force,
        log=log,
    )


class _CallableModule(types.ModuleType):
    """This package's module type: `keras_skim.export(...)` runs `export`,
    while `keras_skim.export.export_model` and `from keras_skim.export
    import ...` stay as they are (a function could not hold the submodules)."""

    def __call__(self, *args: Any, **kwargs: Any) -> ExportResult:
        return export(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

__all__ = ["ExportError", "export", "export_model"]
