"""The input side of a model plan beyond token ids: models on float
sequences (`Input((T, F)) -> RNN(cell) -> Dense`, the orthogonal-RNN
benchmarks' pixel MNIST and adding task), and the inputs the exporter refuses in one line that
says what it takes (raw text through a Keras `TextVectorization` layer).

The text classifier family's exporter lists `plan_sequence_model` among its
planners (`text_classifier_exporter`, asked by `plan.planner_for`), so the
generic text planner (`plan.plan_model`) never sees these models. A sequence model's plan is a
`SequencePlan`: no embedding; each step's F features go through the cell's
input projections in the graph (`sequence_graph`).
"""

import dataclasses

import numpy as np

from keras_skim.contracts import INPUT_KIND_SEQUENCE
from keras_skim.export.emitter_registry import checked_emitter
from keras_skim.export.errors import WHAT_EXPORT_TAKES, ExportError
from keras_skim.export.family_exporter import refusal_for
from keras_skim.export.plan import INFERENCE_IDENTITY_LAYERS, ModelPlan, checked_output_activation
from keras_skim.export.weights import activation_name, to_numpy


@dataclasses.dataclass
class SequencePlan(ModelPlan):
    """A `ModelPlan` of a model on float sequences [1, T, F]: `embedding` is
    None, each step's features are the cell's input."""

    feature_dim: int = 0
    sequence_length: int = None  # T of the model's Input, None if any length
    input_kind: str = INPUT_KIND_SEQUENCE

    @property
    def vocabulary_size(self):
        return None

    @property
    def embedding_dim(self):
        return self.feature_dim


def takes_sequence(plan):
    """Whether `plan` is of a model on float sequences."""
    return getattr(plan, "input_kind", None) == INPUT_KIND_SEQUENCE


def _text_vectorization(model):
    import keras

    return next((layer for layer in model.layers if isinstance(layer, keras.layers.TextVectorization)), None)


def _model_inputs(model):
    # A subclassed keras.Model (a family's own model class) has no `inputs`
    # until it is called functionally: not a sequence model then.
    return getattr(model, "inputs", None) or []


def _is_float_sequence(model):
    inputs = _model_inputs(model)
    if len(inputs) != 1:
        return False
    return len(inputs[0].shape) == 3 and "float" in str(inputs[0].dtype)


def recognise(model):
    """Models this module plans (or refuses): float sequences, raw text."""
    if _text_vectorization(model) is not None:
        return True
    inputs = _model_inputs(model)
    if len(inputs) == 1 and "string" in str(inputs[0].dtype):
        return True
    return _is_float_sequence(model)


def _refuse_text(model):
    layer = _text_vectorization(model)
    what = f"layer {layer.name!r} (TextVectorization)" if layer is not None else "the model's string input"
    raise ExportError(
        f"{what} turns raw text into ids inside the model, which an export cannot hold: {WHAT_EXPORT_TAKES}; "
        "tokenize with keras-skim's tokenizer (keras_skim.datasets.tokenizer.Tokenizer, the tokenizer.json "
        "of keras-skim train) and feed its ids to an Embedding(mask_zero=True)"
    )


def _recurrent_layer(layer):
    import keras

    if isinstance(layer, keras.layers.Bidirectional):
        raise ExportError(
            f"unsupported layer {layer.name!r} (Bidirectional): a sequence model exports one forward recurrent layer"
        )
    for flag in ("return_sequences", "go_backwards", "return_state"):
        if getattr(layer, flag, False):
            raise ExportError(f"unsupported layer {layer.name!r}: {flag}=True (a sequence model exports one layer)")
    if hasattr(layer.cell, "cells"):
        raise ExportError(f"unsupported layer {layer.name!r}: stacked cells are not exported")
    refusal = refusal_for(layer.cell)
    if refusal is not None:
        raise ExportError(f"layer {layer.name!r}: {refusal}")
    return layer


def _layers(model):
    """(the recurrent layer, the Dense head [(kernel, bias, activation)])."""
    import keras

    rnn, head = None, []
    for layer in model.layers:
        kind = type(layer).__name__
        if isinstance(layer, keras.layers.InputLayer) or kind in INFERENCE_IDENTITY_LAYERS:
            continue
        if isinstance(layer, (keras.layers.RNN, keras.layers.Bidirectional)):
            if rnn is not None:
                raise ExportError(f"unsupported layer {layer.name!r} (a second recurrent layer)")
            rnn = _recurrent_layer(layer)
        elif isinstance(layer, keras.layers.Dense) and rnn is not None:
            kernel = to_numpy(layer.kernel)
            bias = to_numpy(layer.bias) if layer.use_bias else np.zeros(kernel.shape[1])
            head.append((kernel, bias, activation_name(layer.activation)))
        else:
            where = "before its recurrent layer" if rnn is None else "after its recurrent layer"
            raise ExportError(f"unsupported layer {layer.name!r} ({kind}) {where}: {WHAT_EXPORT_TAKES}")
    if rnn is None:
        raise ExportError(f"the model has no recurrent layer: {WHAT_EXPORT_TAKES}")
    if not head:
        raise ExportError("the model has no Dense layer after its recurrent layer")
    return rnn, head


def plan_sequence_model(model):
    """The `SequencePlan` of a float-sequence model; a one-line ExportError
    for raw-text models and for what the sequence plan does not take."""
    if not _is_float_sequence(model):
        _refuse_text(model)
    _, length, features = model.inputs[0].shape
    if features is None:
        raise ExportError("the model's Input((T, F)) must fix F, the features per step")
    rnn, head = _layers(model)
    output_activation = checked_output_activation(head)
    emitter = checked_emitter(rnn.cell, rnn.name)
    if emitter.input_dim != features:
        raise ExportError(f"layer {rnn.name!r} takes {emitter.input_dim} features per step, the Input has {features}")
    return SequencePlan(
        embedding=None,
        emitter=emitter,
        rnn_layer_name=rnn.name,
        head=head,
        output_activation=output_activation,
        rnn_layer=rnn,
        feature_dim=int(features),
        sequence_length=None if length is None else int(length),
    )
