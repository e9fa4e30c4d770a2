"""The `metadata.json` written next to an exported `model.tflite`."""
FORMAT = "keras_skim.export"
VERSION = 1


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


def build_metadata(plan, *, max_length, default_threshold, keras_bytes, tflite_bytes,
                   source_model, tokenizer_file, parity, ops, signature):
    emitter = plan.emitter
    return {
        "format": FORMAT,
        "version": VERSION,
        "model_kind": emitter.model_kind,
        "units": emitter.units,
        "small_units": emitter.small_units,
        "embedding_dim": plan.embedding_dim,
        "vocabulary_size": plan.vocabulary_size,
        "num_classes": plan.num_classes,
        "output_activation": plan.output_activation,
        "max_length": max_length,
        "default_threshold": default_threshold,
        "signature": signature,
        "inputs": {
            "token_ids": {
                "shape": [1, -1],
                "dtype": "int32",
                "note": "one text, no padding: id 0 is the padding id and must not appear",
            },
            "threshold": {
                "shape": [],
                "dtype": "float32",
                "default": default_threshold,
                "note": "read a token iff p_read >= threshold; 0 reads all, >= 1 skims all"
                if emitter.skims
                else "ignored by a model without a skim cell",
            },
        },
        "outputs": {
            "logits": {
                "shape": [1, plan.num_classes],
                "dtype": "float32",
                "activation": plan.output_activation,
                "note": "pre-activation: apply `activation` to get the model's output",
            },
            "read_mask": {"shape": [1, -1], "dtype": "int32", "note": "1 = read by the big cell, 0 = skimmed"},
            "read_count": {"shape": [1], "dtype": "int32"},
        },
        "flops": flops_section(plan),
        "keras_weights_bytes": keras_bytes,
        "tflite_bytes": tflite_bytes,
        "source_model": source_model,
        "tokenizer": tokenizer_file,
        "parity": parity,
        "tflite_ops": ops,
    }
