"""The `metadata.json` written next to an exported `model.tflite` (its keys
and format version are the export folder's contract: `keras_skim.contracts`)."""

from keras_skim import contracts


def weights_bytes(model):
    total = 0
    for weight in model.weights:
        size = 1
        for n in weight.shape:
            size *= int(n)
        total += size * 4
    return total


def flops_section(plan):
    from keras_skim.analysis.flops import flop_report

    if plan.jumps:
        return structural_jump_flops_section(plan)
    emitter = plan.emitter
    args = (emitter.flop_kind, emitter.units, emitter.small_units, plan.embedding_dim)
    if not emitter.skims:
        report = flop_report(*args, skim_rate=0.0)
        return {
            "kind": emitter.flop_kind,
            "baseline_flops_per_token": report["baseline_flops"],
            "read_flops_per_token": report["baseline_flops"],
            "skim_flops_per_token": None,
        }
    all_read = flop_report(*args, skim_rate=0.0)
    all_skim = flop_report(*args, skim_rate=1.0)
    return {
        "kind": emitter.flop_kind,
        "baseline_flops_per_token": all_read["baseline_flops"],
        "read_flops_per_token": all_read["read_flops"],
        "skim_flops_per_token": all_read["skim_flops"],
        "at_skim_rate_0": all_read,
        "at_skim_rate_1": all_skim,
    }


def structural_jump_flops_section(plan):
    """FLOPs of a Structural-Jump-LSTM's pieces (keras_skim.analysis.structural_jump_flops)
    and how Flop-r follows from the export's outputs."""
    from keras_skim.analysis.structural_jump_flops import structural_jump_step_flops

    emitter = plan.emitter
    step = structural_jump_step_flops(emitter.units, plan.embedding_dim, emitter.agent_units)
    return {
        "kind": emitter.model_kind,
        "baseline_flops_per_token": step["baseline_lstm"],
        "read_flops_per_token": None,
        "skim_flops_per_token": None,
        "skip_agent_flops": step["skip_agent"],
        "lstm_flops": step["lstm"],
        "jump_agent_flops": step["jump_agent"],
        "read_step_flops": step["read_step"],
        "flop_r_rule": (
            "per text: words = tokens whose read_mask is not 3; FLOPs = visited_count x "
            "skip_agent_flops + read_count x read_step_flops; full read = words x "
            "baseline_flops_per_token (a vanilla LSTM of the same size); Flop-r = sum of full-read "
            "FLOPs / sum of FLOPs over a corpus (keras_skim.analysis.structural_jump_flops)"
        ),
    }


def _structural_jump_entries(plan, metadata):
    """What a Structural-Jump-LSTM export adds to or changes in the metadata."""
    emitter = plan.emitter
    codes = {str(code): name for code, name in contracts.TOKEN_CODES.items()}
    codes[str(contracts.TOKEN_SKIMMED)] = "skipped"
    codes[str(contracts.TOKEN_NOT_A_WORD)] = "not a word (punctuation or padding)"
    metadata.update(
        agent_units=emitter.agent_units,
        speed_reading=emitter.speed_reading,
        punctuation=dict(plan.structure),
        token_codes=codes,
        threshold_rule=None,
    )
    metadata["inputs"][contracts.INPUT_TOKEN_IDS]["note"] = (
        "raw tokenizer ids, punctuation included (it steers the jumps and is never read); id 0 is "
        f"padding (ignored); ids must be < vocabulary_size ({plan.vocabulary_size}); texts longer "
        "than max_length are cut there, as in training"
    )
    metadata["inputs"][contracts.INPUT_THRESHOLD]["note"] = (
        "ignored: a Structural-Jump-LSTM's skip and jump agents decide what is read (greedy)"
    )
    metadata["outputs"][contracts.OUTPUT_READ_MASK].update(
        dtype="int32",
        note="per token: 1 = read, 0 = skipped by the skip agent, 2 = jumped over (never touched), "
        "3 = not a word (punctuation or padding)",
    )
    metadata["outputs"][contracts.OUTPUT_READ_COUNT]["note"] = "words read (LSTM steps)"
    metadata["outputs"][contracts.OUTPUT_VISITED_COUNT] = {
        "shape": [1],
        "dtype": "int32",
        "note": "words not jumped over (read or skipped)",
    }
    return metadata


def build_metadata(
    plan,
    *,
    max_length,
    default_threshold,
    keras_bytes,
    tflite_bytes,
    source_model,
    tokenizer_file,
    parity,
    ops,
    backend,
    custom_ops,
    quantize=None,
):
    emitter = plan.emitter
    mask_dtype = "float32" if custom_ops else "int32"
    metadata = {
        "format": contracts.METADATA_FORMAT,
        "version": contracts.METADATA_VERSION,
        "model_kind": emitter.model_kind,
        "units": emitter.units,
        "small_units": emitter.small_units,
        "embedding_dim": plan.embedding_dim,
        "vocabulary_size": plan.vocabulary_size,
        "num_classes": plan.num_classes,
        "output_activation": plan.output_activation,
        "max_length": max_length,
        "default_threshold": default_threshold,
        "padding_id": plan.padding_id,
        "threshold_rule": contracts.THRESHOLD_RULE if emitter.skims else None,
        "signature": contracts.SIGNATURE_KEY,
        "inputs": {
            contracts.INPUT_TOKEN_IDS: {
                "shape": [1, -1],
                "dtype": "int32",
                "note": (
                    contracts.PADDING_RULE
                    if plan.padding_id is not None
                    else "id 0 is an ordinary token (the model's embedding does not mask it)"
                )
                + f"; ids must be < vocabulary_size ({plan.vocabulary_size}); texts longer than "
                "max_length are cut there, as in training",
            },
            contracts.INPUT_THRESHOLD: {
                "shape": [],
                "dtype": "float32",
                "default": default_threshold,
                "note": contracts.THRESHOLD_RULE if emitter.skims else "ignored by a model without a skim cell",
            },
        },
        "outputs": {
            contracts.OUTPUT_LOGITS: {
                "shape": [1, plan.num_classes],
                "dtype": "float32",
                "activation": plan.output_activation,
                "note": "pre-activation: apply `activation` to get the model's output",
            },
            contracts.OUTPUT_READ_MASK: {
                "shape": [1, -1],
                "dtype": mask_dtype,
                "note": "1 = read by the big cell, 0 = skimmed (or padding)",
            },
            contracts.OUTPUT_READ_COUNT: {"shape": [1], "dtype": "int32"},
        },
        "flops": flops_section(plan),
        "keras_weights_bytes": keras_bytes,
        "tflite_bytes": tflite_bytes,
        "source_model": source_model,
        "tokenizer": tokenizer_file,
        "parity": parity,
        "tflite_ops": ops,
        "backend": backend,
        "custom_ops": custom_ops,
        "quantize": quantize,
    }
    if plan.jumps:
        _structural_jump_entries(plan, metadata)
    return metadata
