"""`export_model`: a trained Keras model file -> `OUTDIR/model.tflite`,
`tokenizer.json` and `metadata.json`, written only if parity holds."""
import dataclasses
import json
import os
import shutil

import numpy as np

from keras_skim.export.errors import ExportError

BACKENDS = ("builtin", "custom")
CUSTOM_OP_NOTE = (
    "needs the KerasSkimLSTM custom op: register keras_skim.litert_ops with the interpreter "
    "(keras_skim.litert_ops.make_interpreter or keras_skim.runtime.SkimRunner do it; "
    "an Android app registers KerasSkim_GetRegistration() with its op resolver)"
)


@dataclasses.dataclass
class ExportResult:
    output_dir: str
    files: list
    metadata: dict
    parity: object
    notes: list


def _read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _find_tokenizer(model_path, tokenizer_path):
    if tokenizer_path is not None:
        if not os.path.isfile(tokenizer_path):
            raise ExportError(f"{tokenizer_path}: no such tokenizer file")
        return tokenizer_path
    sibling = os.path.join(os.path.dirname(os.path.abspath(model_path)), "tokenizer.json")
    return sibling if os.path.isfile(sibling) else None


def _parity_texts(tokenizer, train_config, count, max_length):
    """A few real test texts when the training data set is at hand."""
    if tokenizer is None or not train_config or not train_config.get("dataset"):
        return []
    try:
        from keras_skim.datasets import load_text_dataset

        texts, _ = load_text_dataset(train_config["dataset"], "test", limit=count)
    except Exception:  # no data offline: random sequences are used instead
        return []
    return [tokenizer.encode_one(t, max_length=max_length) for t in list(texts)[:count]]


def _check_custom_backend(model):
    """The custom-op backend's checks: the model form and the op library
    (compiled on first use). Raises ExportError suggesting --backend builtin."""
    from keras_skim.export.custom_op_backend import read_model

    try:
        read_model(model)
    except ValueError as err:
        raise ExportError(f"{str(err).splitlines()[0]}; use --backend builtin") from None
    try:
        from keras_skim import litert_ops

        litert_ops.library_path()
    except (RuntimeError, OSError) as err:
        raise ExportError(
            f"--backend custom unavailable: {str(err).splitlines()[0]}; use --backend builtin"
        ) from None


def _custom_parity(model, flatbuffer, sequences, thresholds):
    import tempfile

    from keras_skim.export.custom_op_backend import custom_op_parity

    with tempfile.TemporaryDirectory(prefix="keras-skim-export-") as folder:
        path = os.path.join(folder, "model.tflite")
        with open(path, "wb") as f:
            f.write(flatbuffer)
        try:
            return custom_op_parity(model, path, samples=sequences, thresholds=thresholds)
        except (RuntimeError, ValueError) as err:  # op not registrable in this LiteRT
            raise ExportError(
                f"--backend custom: the KerasSkimLSTM op does not run here ({str(err).strip().splitlines()[0][:200]}); "
                "use --backend builtin"
            ) from None


def export_model(model_path, output_dir, *, force=False, tokenizer_path=None, threshold=None,
                 parity_samples=4, fold=None, log=None, backend="builtin"):
    """Exports a trained model to TFLite; see `keras-skim export --help`.

    `backend`: "builtin" (builtin TFLite ops only, runs anywhere) or "custom"
    (one `KerasSkimLSTM` custom op, Skim-LSTM classifiers only; interpreters
    must register `keras_skim.litert_ops`).

    Raises:
        ExportError: one-line reason; nothing is written then.
    """
    from keras_skim.model_io import ModelLoadError, load_model, staged_output_dir

    log = log or (lambda message: None)
    notes = []
    output_dir = os.path.abspath(os.fspath(output_dir))
    if os.path.exists(output_dir) and not force:
        raise ExportError(f"{output_dir} already exists (use --force to overwrite it)")
    if threshold is not None and (not np.isfinite(threshold) or threshold < 0):
        raise ExportError(f"--threshold must be a number >= 0; got {threshold}")
    if parity_samples < 1:
        raise ExportError("--parity-samples must be at least 1")
    if backend not in BACKENDS:
        raise ExportError(f"--backend must be one of {', '.join(BACKENDS)}; got {backend!r}")
    tokenizer_file = _find_tokenizer(model_path, tokenizer_path)
    try:
        model = load_model(model_path)
    except ModelLoadError as err:
        raise ExportError(str(err)) from None
    if backend == "custom":
        _check_custom_backend(model)

    from keras_skim.export.graph_builder import SIGNATURE_KEY, build_module, convert
    from keras_skim.export.model_plan import plan_model
    from keras_skim.export.metadata import build_metadata, weights_bytes
    from keras_skim.export.op_inventory import non_builtin_ops, op_inventory
    from keras_skim.export.parity import check_parity, parity_thresholds, sample_sequences
    from keras_skim.runtime.interpreter_loader import make_interpreter

    plan = plan_model(model)
    emitter = plan.emitter
    if not emitter.skims:
        notes.append(
            f"the model has no keras-skim layer: exported as a plain {emitter.model_kind.upper()} "
            "(read_mask is all ones)"
        )
    default_threshold = emitter.default_threshold
    if threshold is not None:
        if not emitter.skims:
            notes.append("--threshold ignored: the model has no skim cell")
        else:
            default_threshold = float(threshold)

    tokenizer = None
    if tokenizer_file is not None:
        from keras_skim.datasets.tokenizer import Tokenizer

        try:
            tokenizer = Tokenizer.load(tokenizer_file)
        except ValueError as err:
            raise ExportError(str(err).splitlines()[0]) from None
        if tokenizer.vocabulary_size > plan.vocabulary_size:
            raise ExportError(
                f"{tokenizer_file}: {tokenizer.vocabulary_size} tokens but the model's embedding has "
                f"{plan.vocabulary_size} rows"
            )
    else:
        notes.append("no tokenizer.json next to the model (use --tokenizer): the export takes token ids only")
    train_config = _read_json(os.path.join(os.path.dirname(os.path.abspath(model_path)), "train_config.json"))
    max_length = (train_config or {}).get("max_length")

    texts = _parity_texts(tokenizer, train_config, parity_samples, max_length)
    sequences = sample_sequences(plan.vocabulary_size, parity_samples, token_lists=texts)
    thresholds = parity_thresholds(default_threshold if emitter.skims else None)
    if backend == "custom":
        from keras_skim.export.custom_op_backend import custom_op_flatbuffer

        flatbuffer = custom_op_flatbuffer(model, threshold=default_threshold,
                                          length=max_length if max_length else None)
        parity = _custom_parity(model, flatbuffer, sequences, thresholds)
    else:
        try:
            module = build_module(plan, fold=fold)
            flatbuffer = convert(module)
        except ExportError:
            raise
        except Exception as err:  # converter failures are long: keep the first line
            raise ExportError(f"TFLite conversion failed ({str(err).strip().splitlines()[0][:200]})") from None
        extra = non_builtin_ops(flatbuffer)
        if extra:
            raise ExportError(f"the converted graph needs non-builtin ops: {', '.join(extra)}")

        interpreter = make_interpreter(model_content=flatbuffer, num_threads=1)
        signature = interpreter.get_signature_runner(SIGNATURE_KEY)

        def run(token_ids, value):
            return signature(token_ids=np.asarray(token_ids, np.int32), threshold=np.float32(value))

        parity = check_parity(model, plan, run, sequences, thresholds)
    log(parity.message)
    if not parity.ok:
        raise ExportError(f"{parity.message}; nothing written")

    metadata = build_metadata(
        plan,
        max_length=max_length,
        default_threshold=default_threshold,
        keras_bytes=weights_bytes(model),
        tflite_bytes=len(flatbuffer),
        source_model=os.path.abspath(os.fspath(model_path)),
        tokenizer_file="tokenizer.json" if tokenizer_file else None,
        parity=dict(parity.as_dict(), real_texts=len(texts)),
        ops=sorted({op for ops in op_inventory(flatbuffer).values() for op in ops}),
        signature=SIGNATURE_KEY,
    )
    metadata["backend"] = backend
    metadata["custom_ops"] = ["KerasSkimLSTM"] if backend == "custom" else []
    if backend == "custom":
        metadata["outputs"]["read_mask"]["dtype"] = "float32"
        metadata["runtime_note"] = CUSTOM_OP_NOTE
        notes.append(f"custom-op model: {CUSTOM_OP_NOTE}")
    files = ["model.tflite", "metadata.json"] + (["tokenizer.json"] if tokenizer_file else [])
    try:
        with staged_output_dir(output_dir, force=force) as stage:
            with open(os.path.join(stage, "model.tflite"), "wb") as f:
                f.write(flatbuffer)
            if tokenizer_file:
                shutil.copyfile(tokenizer_file, os.path.join(stage, "tokenizer.json"))
            with open(os.path.join(stage, "metadata.json"), "w", encoding="utf-8") as f:
                json.dump(metadata, f, indent=1)
                f.write("\n")
    except FileExistsError as err:
        raise ExportError(str(err)) from None
    return ExportResult(output_dir, files, metadata, parity, notes)
