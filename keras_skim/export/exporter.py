"""`export_model`: a trained Keras model -> an export folder
(`contracts.TFLITE_FILE`, `TOKENIZER_FILE`, `METADATA_FILE`), written only
if parity holds.

It only orchestrates: the model plan (`plan.plan_model`, read once and
handed to every piece below), a backend (`builtin_backend`,
`custom_op_backend`: peers with `check`, `flatbuffer` and
`parity_reference`), the one parity checker (`parity`) driven by the
runtime's interpreter, the metadata (`metadata`, its FLOP counts from
`analysis.flops.plan_flop_report`), and the staged output folder
(`output_folder.staged_output_dir`).
"""

import dataclasses
import os

import numpy as np

from keras_skim import contracts, output_folder
from keras_skim.export.errors import ExportError
from keras_skim.export.export_files import ExportResult
from keras_skim.export.export_files import checked_tokenizer as _tokenizer
from keras_skim.export.export_files import parity_record as _parity_record
from keras_skim.export.export_files import write_export as _write_export
from keras_skim.export.export_options import ExportOptions
from keras_skim.export.sequence_input import takes_sequence

CUSTOM_OP_NOTE = (
    "needs the {op} custom op: keras_skim's runtime (SkimRunner, keras-skim bench) "
    "registers it through the LiteRT C API; an Android app through android_demo/app/src/main/cpp"
)


def backends():
    """{name: backend}: the export backends, peers behind one interface."""
    from keras_skim.export.builtin_backend import BuiltinBackend
    from keras_skim.export.custom_op_backend import CustomOpBackend

    return {backend.name: backend for backend in (BuiltinBackend(), CustomOpBackend())}


def default_output_dir(model_path):
    """`<model name>_tflite` next to the model: `run/` -> `run_tflite/`,
    `m.h5` -> `m_tflite/`."""
    path = os.path.abspath(os.fspath(model_path)).rstrip(os.sep)
    if os.path.isdir(path):
        return path + "_tflite"
    return os.path.splitext(path)[0] + "_tflite"


def recorded_test_texts(train_config, count, notes):
    """Up to `count` test texts of the data `train_config` records; [] with
    a note when that data is not at hand (a recorded file that is gone, a
    data set that cannot be fetched offline). Any other error is raised."""
    from keras_skim.datasets.errors import DatasetUnavailableError, DataSourceError, FetchError
    from keras_skim.datasets.registry import recorded_data, resolve_data

    try:
        source = resolve_data(recorded=recorded_data(train_config.as_dict()))
        texts, _ = source.load("test", limit=count)
    except (DataSourceError, DatasetUnavailableError, FetchError) as err:
        notes.append(f"parity on random token ids only: the training data is not at hand ({str(err).splitlines()[0]})")
        return []
    return list(texts)[:count]


def _parity_token_lists(texts, tokenizer, train_config, count, notes):
    """The token ids of the parity texts: the caller's `texts`, or when None
    the recorded data's (`recorded_test_texts`); none without a tokenizer."""
    if tokenizer is None:
        if texts:
            raise ExportError("parity texts need the model's tokenizer.json (use --tokenizer)")
        return []
    if texts is None:
        recorded = train_config is not None and train_config.dataset
        texts = recorded_test_texts(train_config, count, notes) if recorded else []
    max_length = train_config.max_length if train_config else None
    return [tokenizer.encode_one(t, max_length=max_length) for t in list(texts)[:count]]


def _class_names(train_config, plan, notes):
    """The class names of the training data (`train_config.json`'s data
    section, or a registry data set's), when they fit the model's logits;
    None (the runtime and the app then say "class i") otherwise."""
    if train_config is None:
        return None
    from keras_skim.datasets.registry import recorded_data

    names = recorded_data(train_config.as_dict()).get("classes")
    if not names:
        return None
    if len(names) != max(plan.num_classes, 2):
        notes.append(
            f"class names not recorded: {train_config.path} names {len(names)} classes, the model has "
            f"{max(plan.num_classes, 2)}"
        )
        return None
    return [str(name) for name in names]


def _runner(flatbuffer, plan=None):
    """callable(token_ids, threshold) -> outputs (a float sequence instead
    of token ids for a sequence plan), through the runtime's interpreter
    (the one `keras-skim bench` and the app use)."""
    from keras_skim.runtime.interpreter_loader import make_interpreter

    try:
        signature = make_interpreter(model_content=flatbuffer, num_threads=1).get_signature_runner(
            contracts.SIGNATURE_KEY
        )
    except (RuntimeError, ValueError, OSError) as err:
        raise ExportError(f"the exported model does not run here ({str(err).strip().splitlines()[0][:200]})") from None

    if plan is not None and takes_sequence(plan):
        from keras_skim.export.sequence_graph import parity_runner

        return parity_runner(signature)
    takes = set(signature.get_input_details())

    def run(token_ids, threshold):
        return signature(**contracts.signature_inputs(takes, np.asarray(token_ids, np.int32), np.float32(threshold)))

    return run


@dataclasses.dataclass
class _ExportInputs:
    """What an export reads: the model (loaded, or the caller's in memory),
    its file (None in memory), the tokenizer file or the caller's
    `Tokenizer`, the output folder and the train config."""

    model: object
    model_file: object
    tokenizer_file: object
    tokenizer: object
    output_dir: str
    train_config: object


def is_model_object(model_or_path):
    """Whether `model_or_path` is a model in memory rather than a path."""
    return not isinstance(model_or_path, (str, bytes, os.PathLike))


def _tokenizer_argument(tokenizer):
    """(tokenizer file, in-memory Tokenizer) of a `tokenizer` argument: a
    `keras_skim.datasets.Tokenizer`, a tokenizer.json (or its folder), or None."""
    from keras_skim.datasets.tokenizer import Tokenizer

    if tokenizer is None or isinstance(tokenizer, Tokenizer):
        return None, tokenizer
    if not isinstance(tokenizer, (str, os.PathLike)):
        raise ExportError(
            "tokenizer must be a keras_skim.datasets.Tokenizer or a tokenizer.json path; "
            f"got {type(tokenizer).__name__}"
        )
    return contracts.tokenizer_file(tokenizer), None


def _export_inputs(model_path, output_dir, tokenizer, force):
    """The `_ExportInputs` of a model folder or file: checked and loaded."""
    from keras_skim.model_io import ModelLoadError, load_model

    try:
        folder = contracts.resolve_model(model_path)
        tokenizer_file, given = _tokenizer_argument(tokenizer)
        if tokenizer is None:
            tokenizer_file = folder.tokenizer
        output_dir = os.path.abspath(os.fspath(output_dir or default_output_dir(model_path)))
        output_folder.check_output_folder(output_dir, force=force, inputs=[folder.model, tokenizer_file])
        train_config = contracts.read_train_config(folder.train_config) if folder.train_config else None
    except contracts.ContractError as err:
        raise ExportError(str(err)) from None
    try:
        model = load_model(folder.model)
    except ModelLoadError as err:
        raise ExportError(str(err)) from None
    return _ExportInputs(model, folder.model, tokenizer_file, given, output_dir, train_config)


def _memory_inputs(model, output_dir, tokenizer, force):
    """The `_ExportInputs` of a Keras model in memory: `tokenizer` is a
    `keras_skim.datasets.Tokenizer`, a tokenizer.json (or its folder) or None;
    there is no train config (as for a bare .keras file)."""
    import keras

    if not isinstance(model, keras.Model):
        raise ExportError(f"expected a keras.Model, a model folder or a .keras/.h5 file; got {type(model).__name__}")
    if output_dir is None:
        raise ExportError("a model in memory has no folder to export next to: pass output_dir")
    try:
        tokenizer_file, tokenizer = _tokenizer_argument(tokenizer)
        output_dir = os.path.abspath(os.fspath(output_dir))
        output_folder.check_output_folder(output_dir, force=force, inputs=[tokenizer_file])
    except contracts.ContractError as err:
        raise ExportError(str(err)) from None
    return _ExportInputs(model, None, tokenizer_file, tokenizer, output_dir, None)


def _checked_backend(model, plan, family, backend, quantize):
    """(the backend, the note on the other one or None), checked for `plan`."""
    if quantize and not family.quantizes:
        raise ExportError(f"--quantize {quantize} is not available for {plan.model_kind} models (export float32)")
    backend_note = None  # what the other backend gives, printed after the custom-op note
    if backend == "auto":
        from keras_skim.export.backend_choice import choose_backend

        backend, backend_note = choose_backend(model, plan)
    if quantize and backend not in family.quantizes:
        raise ExportError(
            f"--quantize {quantize} is not available for {plan.model_kind} models with --backend {backend} "
            f"(use --backend {' or '.join(family.quantizes)}, or export float32)"
        )
    chosen = backends()[backend]
    chosen.check(model, plan)
    return chosen, backend_note


def _default_threshold(plan, family, threshold, notes):
    """The threshold the metadata records: --threshold where a skim gate takes it."""
    emitter = plan.emitter
    if threshold is None:
        return emitter.default_threshold
    if family.threshold_note:
        notes.append(family.threshold_note)
    elif not emitter.skims:
        notes.append("--threshold ignored: the model has no skim cell")
    else:
        return threshold
    return emitter.default_threshold


def _parity_sequences(plan, token_lists, count):
    """The parity check's inputs: the texts' token ids first, then random ones."""
    from keras_skim.export.parity import sample_sequences

    if takes_sequence(plan):
        from keras_skim.export import sequence_graph

        return sequence_graph.sample_sequences(plan, count)
    punctuation = sorted(i for ids in plan.structure.values() for i in ids) if plan.structure else None
    return sample_sequences(
        plan.vocabulary_size, count, token_lists=token_lists, padding_id=plan.padding_id, punctuation_ids=punctuation
    )


def _checked_parity(model, plan, chosen, flatbuffer, sequences, default_threshold, quantize):
    """(parity, against, tolerance) of the export's `flatbuffer` against its reference; ExportError if it fails."""
    from keras_skim.export.parity import EXACT, INT8_AGREEMENT, check_parity, parity_thresholds

    thresholds = parity_thresholds(default_threshold if plan.emitter.skims else None)
    reference, against = chosen.parity_reference(model, plan, flatbuffer)
    tolerance = INT8_AGREEMENT if quantize and reference is None else EXACT
    if takes_sequence(plan) and reference is None:  # the Keras model, fed float steps instead of token ids
        from keras_skim.export import sequence_graph

        reference = sequence_graph.keras_reference(model, plan)
    parity = check_parity(
        model,
        plan,
        _runner(flatbuffer, plan),
        sequences,
        thresholds,
        reference=reference,
        against=against,
        tolerance=tolerance,
    )
    return parity, against, tolerance


def _input_notes(plan, inputs, notes):
    """The notes on what the model takes; (tokenizer file, the caller's
    in-memory Tokenizer) to export, both None for a model of float
    sequences, which takes no token ids."""
    emitter = plan.emitter
    if not emitter.skims and not plan.jumps and not type(emitter.cell).__module__.startswith("keras_skim."):
        notes.append(
            f"the model has no keras-skim layer: exported as a plain {emitter.model_kind.upper()} "
            "(read_mask is 1 on every token)"
        )
    if takes_sequence(plan) and (inputs.tokenizer_file is not None or inputs.tokenizer is not None):
        notes.append("the model takes float sequences, not token ids: tokenizer.json is not exported")
        return None, None
    return inputs.tokenizer_file, inputs.tokenizer


def _export_tokenizer(tokenizer_file, given, plan, in_memory, notes):
    """`_tokenizer`, with a note when a token-id model is exported without one."""
    tokenizer = _tokenizer(tokenizer_file, plan, given)
    if tokenizer is None and not takes_sequence(plan):
        where = "given (tokenizer=...)" if in_memory else "next to the model (use --tokenizer)"
        notes.append(f"no tokenizer.json {where}: the export takes token ids only")
    return tokenizer


def _metadata(plan, chosen, facts, notes):
    """The export's `ExportMetadata`, with the runtime note of each custom op it needs."""
    from keras_skim.export.metadata import build_metadata

    metadata = build_metadata(plan, facts)
    for op in chosen.ops_for(plan):
        metadata.runtime_note = CUSTOM_OP_NOTE.format(op=op)
        notes.append(f"custom-op model: {metadata.runtime_note}")
    return metadata


def _options(options, settings):
    """The `ExportOptions` of a call: `options`, or one built from its keywords."""
    if options is not None and settings:
        raise TypeError("export_model takes ExportOptions or its settings as keywords, not both")
    return options if options is not None else ExportOptions(**settings)


def export_model(model_path, output_dir=None, options=None, *, log=None, **settings):
    """Exports a trained model to TFLite; see `keras-skim export --help`.

    Args:
        model_path: a model folder from `keras-skim train`, or a `.keras` /
            `.h5` file (its sibling tokenizer.json and train_config.json are
            used when present), or a `keras.Model` in memory (exported as a
            bare `.keras` file of it would be: no train config).
        output_dir: the export folder; `default_output_dir(model_path)`
            when None (a model in memory needs one).
        options: an `ExportOptions` (backend, quantize, threshold, parity
            samples and texts, fold, force, tokenizer); None: one built
            from `settings`.
        log: callable(str) for progress lines.
        **settings: `ExportOptions`' fields as keywords (`backend="custom"`,
            `quantize="int8"`, `tokenizer=...` for a model in memory, ...),
            instead of `options`.

    Raises:
        ExportError: one-line reason; nothing is written then.
    """
    from keras_skim.export.family_exporter import exporter_of
    from keras_skim.export.metadata import ExportFacts, weights_bytes
    from keras_skim.export.plan import plan_model
    from keras_skim.model_kinds import task_of_model
    from keras_skim.runtime.tflite_check import op_inventory

    options = _options(options, settings)
    log = log or (lambda message: None)
    notes = []
    read_inputs = _memory_inputs if is_model_object(model_path) else _export_inputs
    given = options.tokenizer if options.tokenizer is not None else options.tokenizer_path
    inputs = read_inputs(model_path, output_dir, given, options.force)
    task = task_of_model(inputs.model)
    if task is not None:  # a question-answering model: its own inputs, graph and metadata
        from keras_skim.export.task_export import export_task_model

        return export_task_model(task, inputs, options, log)
    model, output_dir, train_config = inputs.model, inputs.output_dir, inputs.train_config
    plan = plan_model(model)
    family = exporter_of(plan.model_kind)
    chosen, backend_note = _checked_backend(model, plan, family, options.backend, options.quantize)
    tokenizer_file, given = _input_notes(plan, inputs, notes)
    default_threshold = _default_threshold(plan, family, options.threshold, notes)
    tokenizer = _export_tokenizer(tokenizer_file, given, plan, inputs.model_file is None, notes)
    sequence = takes_sequence(plan)
    max_length = plan.sequence_length if sequence else (train_config.max_length if train_config else None)
    texts = _parity_token_lists(options.parity_texts, tokenizer, train_config, options.parity_samples, notes)
    sequences = _parity_sequences(plan, texts, options.parity_samples)
    flatbuffer = chosen.flatbuffer(
        model, plan, threshold=default_threshold, length=max_length, fold=options.fold, quantize=options.quantize
    )
    parity, against, tolerance = _checked_parity(
        model, plan, chosen, flatbuffer, sequences, default_threshold, options.quantize
    )
    log(parity.message)
    if not parity.ok:
        raise ExportError(f"{parity.message}; nothing written")
    facts = ExportFacts(
        max_length=max_length,
        default_threshold=default_threshold,
        keras_bytes=weights_bytes(model),
        tflite_bytes=len(flatbuffer),
        source_model=os.path.abspath(inputs.model_file) if inputs.model_file else None,
        tokenizer_file=contracts.TOKENIZER_FILE if tokenizer else None,
        parity=_parity_record(parity, len(texts), against, tolerance),
        ops=sorted({op for ops in op_inventory(flatbuffer).values() for op in ops}),
        backend=chosen.name,
        custom_ops=list(chosen.ops_for(plan)),
        quantize=options.quantize,
        class_names=_class_names(train_config, plan, notes),
    )
    metadata = _metadata(plan, chosen, facts, notes)
    notes += [backend_note] if backend_note else []
    _write_export(output_dir, options.force, inputs.model_file, tokenizer_file, flatbuffer, metadata, given)
    files = [contracts.TFLITE_FILE, contracts.METADATA_FILE] + ([contracts.TOKENIZER_FILE] if tokenizer else [])
    return ExportResult(output_dir, files, metadata, parity, notes)
