"""The `custom` export backend: the whole recurrence as one custom LiteRT op
per model kind (`contracts.CUSTOM_OPS`), from the same `ModelPlan` as the
builtin backend.

A classifier Input -> Embedding -> RNN(cell) -> [Dropout] -> Dense whose
cell has an op (the model-kind table's `ModelKind.cell_op`, a module of the
cell's family) becomes that op: the module packs its weights (float32,
folded per word, or int8 with float scales), writes its file, and gives the
NumPy arithmetic of the op an int8 export is checked against (on its
dequantized weights). A model family with an op of its own writes it
through its exporter (`family_exporter.exporter_of`), int8 ones too, and
gives the NumPy reference of its int8 op (`int8_op_reference`).

The op looks a token's embedding up and projects it itself, for the cell
that runs on it only: the big cell on read tokens, the small cell on skimmed
ones (or takes per-word folded rows, `fold=True`). The model needs the op's
kernel at run time: `keras_skim.runtime.interpreter_loader.make_interpreter(path)`
registers every op of the library. Token id 0 is padding when the Embedding
has `mask_zero=True` (the step is skipped, its read_mask is 0).
`custom_op_parity` checks decisions and outputs against Keras.
"""

import numpy as np

from keras_skim.contracts import CUSTOM_OPS, SIGNATURE_KEY
from keras_skim.export.errors import ExportError
from keras_skim.export.family_exporter import exporter_of
from keras_skim.export.flatbuffer_writer import model_description
from keras_skim.export.int8_weights import check_quantize
from keras_skim.model_kinds import KINDS, kind_of, load


def _form():
    """The model form the cell ops take, naming the cells that have one (`ModelKind.cell_op`)."""
    cells = " | ".join(kind.cell_class.rpartition(":")[2] for kind in KINDS.values() if kind.cell_op)
    return f"expected Input -> Embedding -> RNN({cells}) -> [Dropout] -> Dense"


def _cell_op(plan):
    """The module of the cell op of `plan`'s kind (`ModelKind.cell_op`), or None."""
    path = kind_of(plan.model_kind).cell_op
    return None if path is None else load(path)


def model_settings(path_or_bytes):
    """The settings a custom op's .tflite records in its description: units,
    small_units, threshold, output_activation, mask_zero, folded, quantize
    (the last two default to False and None)."""
    settings = model_description(path_or_bytes)
    settings.setdefault("folded", False)
    settings.setdefault("quantize", None)
    return settings


def stack_refusal(plan):
    """Why the custom ops do not export a stacked or bidirectional `plan`: one phrase."""
    layers = len(plan.layers)
    shape = f"{layers} recurrent layers" if layers > 1 else "a Bidirectional layer"
    if layers > 1 and any(layer.bidirectional for layer in plan.layers):
        shape += ", bidirectional"
    return (
        f"the custom ops run one forward recurrent layer and return its last state only; this model has {shape} "
        "(the builtin graph exports it)"
    )


def op_refusal(plan):
    """Why a single-layer `plan` is not of the skim op's form (one line), or None."""
    rnn = plan.rnn_layer
    where = f"custom-op export: unsupported layer {plan.rnn_layer_name!r} ({type(rnn).__name__})"
    if kind_of(plan.model_kind).cell_op is None:
        return f"{where}: its cell is {type(rnn.cell).__name__}; {_form()}"
    if getattr(rnn, "stateful", False):
        return f"{where}: stateful is not supported"
    if len(plan.head) != 1:
        return (
            f"custom-op export: the op's model has one Dense layer after the RNN, this one {len(plan.head)}; {_form()}"
        )
    return None


def read_model(model, plan=None):
    """The cell op's view of `model` (its cell op's `op_model` of its
    `ModelPlan`, `plan` when the caller has planned it already); ValueError
    (one line) for a model not of the op's form."""
    cell_op, plan = _checked_cell_op(model, plan)
    return cell_op.op_model(plan)


def _checked_cell_op(model, plan=None):
    """(the module of its cell op, its `ModelPlan`: `plan`, or the model
    planned now) of a `model` of the op's form; ExportError (one line)
    otherwise."""
    from keras_skim.export.plan import plan_model
    from keras_skim.export.sequence_input import takes_sequence

    plan = plan_model(model) if plan is None else plan
    if takes_sequence(plan):
        raise ExportError("custom-op export: the custom ops take token ids, not float sequences")
    if plan.stacked:
        raise ExportError(f"custom-op export: {stack_refusal(plan)}")
    refusal = op_refusal(plan)
    if refusal:
        raise ExportError(refusal)
    return _cell_op(plan), plan


def write_custom_op_model(model, path, threshold=None, length=None, fold=None, quantize=None):
    """Writes `model` as a .tflite using its cell's custom op
    (`contracts.CUSTOM_OPS` of its kind).

    Args:
        model: trained Keras model Input(int [T]) -> Embedding ->
            RNN(a skim cell with an op) -> [Dropout] -> Dense(k).
        path: output .tflite path.
        threshold: default read threshold recorded in the model description
            (the `threshold` input is what the op uses); the cell's threshold
            when None.
        length: default T of `token_ids` (resizable); the model's input
            length, or 1 when that is not fixed.
        fold: True stores, per word, the input terms of the big cell, the
            small cell and the gate ([V, G d + G d' + 1], G = 4 for an LSTM,
            3 for a GRU, instead of the [V, e]
            embedding and the input kernels): a read step then streams only
            the recurrent weights (faster, most at small d) but the file
            grows about (G d + G d' + 1) / e times the embedding. None folds
            only when that does not grow the model.
        quantize: None (float32) or "int8": int8 embedding (or folded rows;
            a scale per row) and big-cell kernel (a scale per column); the
            small cell, the gate and the Dense head stay float32.

    Returns:
        The path.

    Raises:
        ValueError: (one line) the model is not of the supported form.
    """
    data = custom_op_flatbuffer(model, threshold=threshold, length=length, fold=fold, quantize=quantize)
    with open(path, "wb") as f:
        f.write(data)
    return path


def custom_op_flatbuffer(model, threshold=None, length=None, fold=None, quantize=None, plan=None):
    """The bytes `write_custom_op_model` writes (same arguments, no path;
    `plan`: the model's `ModelPlan` when the caller has it, so that the
    model is not planned again)."""
    check_quantize(quantize)
    cell_op, plan = _checked_cell_op(model, plan)
    info = cell_op.op_model(plan)
    if threshold is None:
        threshold = info["threshold"]
    if length is None:
        shape = model.inputs[0].shape
        length = int(shape[-1]) if shape[-1] is not None else 1
    return cell_op.op_flatbuffer(info, threshold, length, fold=fold, quantize=quantize)


class CustomOpBackend:
    """The `custom` export backend: one custom op per model kind,
    `contracts.CUSTOM_OPS` (see the module docstring)."""

    name = "custom"
    custom_ops = tuple(CUSTOM_OPS.values())

    def ops_for(self, plan):
        """The custom ops an export of `plan` uses."""
        return (CUSTOM_OPS[plan.model_kind],) if plan.model_kind in CUSTOM_OPS else ()

    def check(self, model, plan):
        """The model form and the op library (built with the package);
        ExportError (one line) suggesting --backend builtin otherwise."""
        from keras_skim.export.sequence_input import takes_sequence

        if takes_sequence(plan):
            raise ExportError("the custom ops take token ids, not float sequences; use --backend builtin")
        if plan.stacked:
            raise ExportError(f"--backend custom: {stack_refusal(plan)}; use --backend builtin")
        refusal = None if exporter_of(plan.model_kind).writes_custom_op else op_refusal(plan)
        if refusal:
            raise ExportError(f"{refusal}; use --backend builtin")
        try:
            from keras_skim import litert_ops

            litert_ops.library_path()
        except (RuntimeError, OSError) as err:
            raise ExportError(
                f"--backend custom unavailable: {str(err).splitlines()[0]}; use --backend builtin"
            ) from None

    def flatbuffer(self, model, plan, *, threshold, length, fold=None, quantize=None):
        family = exporter_of(plan.model_kind)
        if family.writes_custom_op:
            return family.custom_op_flatbuffer(plan, length=length, fold=fold, quantize=quantize)
        return custom_op_flatbuffer(model, threshold=threshold, length=length, fold=fold, quantize=quantize, plan=plan)

    def parity_reference(self, model, plan, flatbuffer):
        """(reference, name) for the parity check of an int8 export of `plan`:
        the op's own arithmetic on its dequantized weights; (None, "Keras")
        otherwise."""
        settings = model_settings(flatbuffer)
        if not settings["quantize"]:
            return None, "Keras"
        family = exporter_of(plan.model_kind)
        if family.writes_custom_op:
            return family.int8_op_reference(plan, settings), "its dequantized weights"
        cell_op = _cell_op(plan)
        return cell_op.int8_reference(cell_op.op_model(plan), settings), "its dequantized weights"


def custom_op_parity(model, path, samples=8, thresholds=None, seed=0, num_threads=1):
    """Compares the custom-op .tflite at `path` with Keras (`training=False`)
    through the exporter's one parity checker
    (`keras_skim.export.parity.check_parity`).

    A float model is compared with the Keras model itself. An int8 model
    (`quantize="int8"`) is compared with its op's NumPy arithmetic on its
    dequantized weights (the cell op's `int8_reference`), so that the check still holds it to every decision and 1e-4
    (how far int8 moves from the float model is measured, not checked: see
    benchmarks/trained_export_speed.py).

    Args:
        model: the Keras model that was written.
        path: its custom-op .tflite.
        samples: number of random token sequences (some with padding id 0),
            or a list of int sequences (id 0 = padding).
        thresholds: thresholds to check; default `parity_thresholds` of the
            cell's threshold.

    Returns:
        `keras_skim.export.parity.ParityResult`; ok iff every read/skim
        decision and read_count agree and outputs (after the Dense
        activation) are within 1e-4.
    """
    from keras_skim.export.parity import check_parity, parity_thresholds, sample_sequences
    from keras_skim.export.plan import plan_model
    from keras_skim.runtime.interpreter_loader import make_interpreter

    plan = plan_model(model)
    if isinstance(samples, int):
        sequences = sample_sequences(plan.vocabulary_size, samples, seed=seed, padding_id=plan.padding_id)
    else:
        sequences = [np.asarray(s, np.int32).reshape(-1) for s in samples]
    if thresholds is None:
        thresholds = parity_thresholds(plan.emitter.default_threshold)
    signature = make_interpreter(model_path=path, num_threads=num_threads).get_signature_runner(SIGNATURE_KEY)

    def run(token_ids, threshold):
        return signature(token_ids=np.asarray(token_ids, np.int32), threshold=np.float32(threshold))

    with open(path, "rb") as f:
        reference, against = CustomOpBackend().parity_reference(model, plan, f.read())
    return check_parity(model, plan, run, sequences, list(thresholds), reference=reference, against=against)
