"""The `metadata.json` written next to an exported `model.tflite`: one
`keras_skim.contracts.ExportMetadata` record (`keras_skim.metadata_record`),
whose fields are the file's keys."""

import dataclasses

from keras_skim import contracts
from keras_skim.analysis.flops import plan_flop_report
from keras_skim.contracts import ExportMetadata, FlopCounts, TensorInfo
from keras_skim.export.family_exporter import exporter_of
from keras_skim.metadata_record import mask_codes
from keras_skim.model_kinds import kind_of


def weights_bytes(model):
    total = 0
    for weight in model.weights:
        size = 1
        for n in weight.shape:
            size *= int(n)
        total += size * 4
    return total


def flops_section(plan):
    """The metadata's FLOP counts: the family's own, or the plan's FLOP report."""
    family_flops = exporter_of(plan.model_kind).flops_section(plan)
    if family_flops is not None:
        return family_flops
    all_read = plan_flop_report(plan, 0.0)
    kind = all_read["kind"]
    if plan.stacked:
        return FlopCounts(
            kind=kind,
            baseline_flops_per_token=all_read["baseline_flops"],
            read_flops_per_token=all_read["read_flops"],
            skim_flops_per_token=all_read["skim_flops"],
            flop_r_rule=STACK_FLOP_R_RULE,
        )
    if not plan.emitter.skims:
        return FlopCounts(
            kind=kind,
            baseline_flops_per_token=all_read["baseline_flops"],
            read_flops_per_token=all_read["baseline_flops"],
        )
    return FlopCounts(
        kind=kind,
        baseline_flops_per_token=all_read["baseline_flops"],
        read_flops_per_token=all_read["read_flops"],
        skim_flops_per_token=all_read["skim_flops"],
        at_skim_rate_0=all_read["directions"][0],
        at_skim_rate_1=plan_flop_report(plan, 1.0)["directions"][0],
    )


STACK_FLOP_R_RULE = (
    "over all layers and directions (layers[i].flops, per token): FLOPs = sum of read_count x read + "
    "(tokens - read_count) x skim, where read_count is the sum of that direction's read mask and tokens its "
    "real (not padding) tokens; full read = sum of tokens x baseline (the same stack of plain cells); Flop-R = "
    "full read / FLOPs"
)


def stack_layers(plan):
    """`metadata.layers`: each recurrent layer's cells, directions, read mask outputs and FLOPs
    (its forward direction's, from the plan's FLOP report)."""
    names = {(index, direction): name for index, direction, name in plan.read_mask_outputs()}
    directions = list(zip(plan.flop_directions(), plan_flop_report(plan, 0.0)["directions"]))
    entries = []
    first = 0  # the layer's forward direction among all of them
    for index, layer in enumerate(plan.layers):
        (emitter, dim), report = directions[first]
        first += len(layer.emitters)
        entries.append(
            {
                "name": layer.name,
                "model_kind": emitter.model_kind,
                "units": emitter.units,
                "small_units": emitter.small_units,
                "input_dim": int(dim),
                "directions": list(layer.directions),
                "return_sequences": layer.return_sequences,
                "merge_mode": layer.merge_mode,
                "read_masks": {direction: names[(index, direction)] for direction in layer.directions},
                "flops": {
                    "baseline": report["baseline_flops"],
                    "read": report["read_flops"],
                    "skim": report["skim_flops"],
                },
            }
        )
    return entries


def _sequence_input(plan):
    """A float-sequence model's `sequence` input."""
    length = plan.sequence_length or -1
    note = f"float32 [1, T, {plan.feature_dim}]: one sequence of T steps of {plan.feature_dim} features" + (
        f" (T = {plan.sequence_length}, the model's Input)" if plan.sequence_length else ""
    )
    return TensorInfo([1, length, plan.feature_dim], "float32", note=note)


def _inputs(plan, default_threshold):
    """The signature's inputs: `threshold` only where it applies."""
    if input_kind(plan) == contracts.INPUT_KIND_SEQUENCE:
        inputs = {contracts.INPUT_SEQUENCE: _sequence_input(plan)}
        if kind_of(plan.model_kind).threshold_applies:
            inputs[contracts.INPUT_THRESHOLD] = TensorInfo(
                [], "float32", note=contracts.THRESHOLD_RULE, default=default_threshold
            )
        return inputs
    padding = (
        contracts.PADDING_RULE
        if plan.padding_id is not None
        else "id 0 is an ordinary token (the model's embedding does not mask it)"
    )
    ids_note = (
        f"{padding}; ids must be < vocabulary_size ({plan.vocabulary_size}); texts longer than "
        "max_length are cut there, as in training"
    )
    inputs = {contracts.INPUT_TOKEN_IDS: TensorInfo([1, -1], "int32", note=ids_note)}
    if kind_of(plan.model_kind).threshold_applies:
        inputs[contracts.INPUT_THRESHOLD] = TensorInfo(
            [], "float32", note=contracts.THRESHOLD_RULE, default=default_threshold
        )
    return inputs


def input_kind(plan):
    """What the export's signature takes (`contracts.INPUT_KIND_*`)."""
    return getattr(plan, "input_kind", contracts.INPUT_KIND_TOKEN_IDS)


def _outputs(plan):
    """The signature's outputs, the same names and dtypes in every backend;
    a stack's other read masks after them (`metadata_record.read_mask_name`)."""
    outputs = _single_outputs(plan)
    if plan.stacked:
        mask = outputs[contracts.OUTPUT_READ_MASK]
        first = plan.layers[0].emitters[0]
        mask.note = f"layer 0 ({plan.layers[0].name}), forward: " + _mask_note(first)
        if not first.skims:
            mask.codes = mask_codes(first.model_kind)
        outputs[contracts.OUTPUT_READ_COUNT].note = "read tokens of read_mask (layer 0, forward)"
        for index, direction, name in plan.read_mask_outputs()[1:]:
            layer = plan.layers[index]
            emitter = layer.emitters[layer.directions.index(direction)]
            outputs[name] = TensorInfo(
                [1, -1],
                "int32",
                note=f"layer {index} ({layer.name}), {direction}: " + _mask_note(emitter),
                codes=mask_codes(emitter.model_kind),
            )
    return outputs


def _mask_note(emitter):
    if emitter.skims:
        return "per token, in token order: 1 = read by the big cell, 0 = skimmed (or padding)"
    return "per token: 1 = read (a plain cell reads every token), 0 = padding"


def _single_outputs(plan):
    return {
        contracts.OUTPUT_LOGITS: TensorInfo(
            [1, plan.num_classes],
            "float32",
            note="pre-activation: apply `activation` to get the model's output",
            activation=plan.output_activation,
        ),
        contracts.OUTPUT_READ_MASK: TensorInfo(
            [1, -1],
            "int32",
            note="per token: 1 = read by the big cell, 0 = skimmed (or padding)",
            codes=mask_codes(plan.model_kind),
        ),
        contracts.OUTPUT_READ_COUNT: TensorInfo([1], "int32"),
    }


@dataclasses.dataclass(frozen=True)
class ExportFacts:
    """What an export knows beyond its plan: the metadata's other fields.

    Attributes:
        max_length: the texts' cut (None: any length).
        default_threshold: the read threshold the signature defaults to.
        keras_bytes: the Keras model's float32 weight bytes (`weights_bytes`).
        tflite_bytes: the size of model.tflite.
        source_model: the exported model's file.
        tokenizer_file: `contracts.TOKENIZER_FILE` when one is exported, else None.
        parity: the parity check's record.
        ops: the flatbuffer's operators, sorted.
        backend: the backend's name.
        custom_ops: the custom ops the export needs.
        quantize: None (float32) or "int8".
        class_names: the training data's class names, or None.
    """

    max_length: object
    default_threshold: float
    keras_bytes: int
    tflite_bytes: int
    source_model: str
    tokenizer_file: object
    parity: dict
    ops: list
    backend: str
    custom_ops: list
    quantize: object = None
    class_names: object = None


def build_metadata(plan, facts):
    """The `ExportMetadata` of an export of `plan` (`facts`: an `ExportFacts`)."""
    emitter = plan.emitter
    metadata = ExportMetadata(
        model_kind=emitter.model_kind,
        units=emitter.units,
        small_units=emitter.small_units,
        embedding_dim=plan.embedding_dim,
        vocabulary_size=plan.vocabulary_size,
        num_classes=plan.num_classes,
        class_names=facts.class_names,
        output_activation=plan.output_activation,
        max_length=facts.max_length,
        default_threshold=facts.default_threshold,
        input_kind=input_kind(plan),
        feature_dim=getattr(plan, "feature_dim", None),
        padding_id=plan.padding_id,
        threshold_rule=contracts.THRESHOLD_RULE if emitter.skims else None,
        inputs=_inputs(plan, facts.default_threshold),
        outputs=_outputs(plan),
        flops=flops_section(plan),
        keras_weights_bytes=facts.keras_bytes,
        tflite_bytes=facts.tflite_bytes,
        source_model=facts.source_model,
        tokenizer=facts.tokenizer_file,
        parity=facts.parity,
        tflite_ops=facts.ops,
        backend=facts.backend,
        custom_ops=facts.custom_ops,
        quantize=facts.quantize,
    )
    exporter_of(plan.model_kind).add_metadata_entries(plan, metadata)
    if plan.stacked:
        metadata.layers = stack_layers(plan)
    return metadata
