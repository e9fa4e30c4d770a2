"""Exports the models of a question-answering task (`model_kinds.TASKS`),
whose signature takes several token inputs (a context and a question, or a
text and its candidates) and gives several outputs.

The task's exporter (`ModelTask.exporter`: its module's `EXPORTER`, a
`TaskExporter`, in the task's family folder) plans the model, builds its
builtin graph (from the emitters of `emitter_registry`, as every builtin
export), gives the parity inputs and the Keras reference, and writes its
metadata; this module names no task: it converts, checks parity
(`task_parity`) against Keras at the parity thresholds, and writes the
export folder, all of it or nothing, as `exporter.export_model` does.
"""

import os

import numpy as np

from keras_skim import contracts
from keras_skim.export.errors import ExportError
from keras_skim.model_kinds import TASKS, load


class TaskExporter:
    """What a task gives `export_task_model`; every method is the task's own."""

    def plan(self, model, folder):
        """The task's plan of `model` (`folder`: its model folder, or None);
        it has `vocabulary_size`, `skims` and `default_threshold`. Raises
        ExportError (one line) for a model the task does not export."""
        raise NotImplementedError

    def build_module(self, plan):
        """A tf.Module whose `serve` is the export's one signature."""
        raise NotImplementedError

    def parity_inputs(self, plan, count):
        """`count` parity inputs: [{signature input name: int32 array [1, T]}]."""
        raise NotImplementedError

    def keras_reference(self, model, plan):
        """callable(inputs) -> {output name: array} of the Keras model: its
        float outputs and its read masks (int32 [1, T]) by their names."""
        raise NotImplementedError

    def metadata(self, plan, facts):
        """The export's `ExportMetadata` (`facts`: `metadata.ExportFacts`), with its `task` section."""
        raise NotImplementedError


def exported_tasks():
    """The names of the tasks whose models export."""
    return [name for name, task in TASKS.items() if task.exporter]


def _task_exporter(task, options, model):
    path = task.exporter_of(model)
    if path is None:
        raise ExportError(f"--task {task.name} models do not export; the tasks that do: {', '.join(exported_tasks())}")
    if options.backend == "custom" or options.quantize:
        raise ExportError(f"--task {task.name} models export with --backend builtin only, float32 (no --quantize)")
    return load(path).EXPORTER


def _runner(flatbuffer):
    """callable(inputs, threshold) -> outputs of the export, through the runtime's interpreter."""
    from keras_skim.runtime.interpreter_loader import make_interpreter

    try:
        signature = make_interpreter(model_content=flatbuffer, num_threads=1).get_signature_runner(
            contracts.SIGNATURE_KEY
        )
    except (RuntimeError, ValueError, OSError) as err:
        raise ExportError(f"the exported model does not run here ({str(err).strip().splitlines()[0][:200]})") from None
    takes_threshold = contracts.INPUT_THRESHOLD in signature.get_input_details()

    def run(inputs, threshold):
        extra = {contracts.INPUT_THRESHOLD: np.float32(threshold)} if takes_threshold else {}
        return signature(**inputs, **extra)

    return run


def _flatbuffer(exporter, plan):
    from keras_skim.export.builtin_backend import builtin_flatbuffer

    return builtin_flatbuffer(exporter.build_module(plan))


def _threshold(plan, options, notes):
    if not plan.skims:
        if options.threshold is not None:
            notes.append("--threshold ignored: the model has no skim cell")
        return None
    return plan.default_threshold if options.threshold is None else options.threshold


def export_task_model(task, inputs, options, log):
    """`export_model` of a task's model (`inputs`: the exporter's `_ExportInputs`) -> `ExportResult`."""
    from keras_skim.export.export_files import ExportResult, checked_tokenizer, parity_record, write_export
    from keras_skim.export.metadata import ExportFacts, weights_bytes
    from keras_skim.export.parity import EXACT, parity_thresholds
    from keras_skim.export.task_parity import check_task_parity
    from keras_skim.runtime.tflite_check import op_inventory

    exporter = _task_exporter(task, options, inputs.model)
    notes = []
    folder = os.path.dirname(inputs.model_file) if inputs.model_file else None
    plan = exporter.plan(inputs.model, folder)
    threshold = _threshold(plan, options, notes)
    tokenizer = checked_tokenizer(inputs.tokenizer_file, plan, inputs.tokenizer)
    if tokenizer is None:
        notes.append("no tokenizer.json next to the model: the export takes token ids only (no answer())")
    flatbuffer = _flatbuffer(exporter, plan)
    samples = exporter.parity_inputs(plan, options.parity_samples)
    parity = check_task_parity(
        inputs.model,
        _runner(flatbuffer),
        exporter.keras_reference(inputs.model, plan),
        samples,
        parity_thresholds(threshold),
    )
    log(parity.message)
    if not parity.ok:
        raise ExportError(f"{parity.message}; nothing written")
    facts = ExportFacts(
        max_length=plan.max_length,
        default_threshold=threshold,
        keras_bytes=weights_bytes(inputs.model),
        tflite_bytes=len(flatbuffer),
        source_model=os.path.abspath(inputs.model_file) if inputs.model_file else None,
        tokenizer_file=contracts.TOKENIZER_FILE if tokenizer else None,
        parity=parity_record(parity, 0, "Keras", EXACT),
        ops=sorted({op for ops in op_inventory(flatbuffer).values() for op in ops}),
        backend="builtin",
        custom_ops=[],
    )
    metadata = exporter.metadata(plan, facts)
    write_export(
        inputs.output_dir,
        options.force,
        inputs.model_file,
        inputs.tokenizer_file,
        flatbuffer,
        metadata,
        inputs.tokenizer,
    )
    files = [contracts.TFLITE_FILE, contracts.METADATA_FILE] + ([contracts.TOKENIZER_FILE] if tokenizer else [])
    return ExportResult(inputs.output_dir, files, metadata, parity, notes)
