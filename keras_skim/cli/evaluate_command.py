"""`keras-skim evaluate`: accuracy, skim rate and Flop-R at a threshold (a
stacked or bidirectional model's skim rate per layer and direction too,
Flop-R over all of them); a model family with its own report (read / skip /
jump fractions of a jump model) has it in its commands module
(`keras_skim.model_kinds.FAMILIES`)."""

import json

from keras_skim.cli.data_args import add_data_argument, add_split_arguments, data_error
from keras_skim.cli.errors import CliError
from keras_skim.cli.model_args import (
    add_threshold_argument,
    family_command,
    load_text_model,
    model_record,
    positive_int,
    text_tokenizer,
)
from keras_skim.models.skim_rnn.skim_layers import is_stack, layer_rows, skim_directions, stack_flop_r


def _classes(source):
    """'2 classes: negative, positive': the data's class names, as the model's export records them."""
    names = [str(name) for name in source.classes[:8]] + (["..."] if len(source.classes) > 8 else [])
    return f"{len(source.classes)} classes: {', '.join(names)}"


def add_arguments(parser):
    parser.add_argument("model", metavar="MODEL", help="model folder or .keras/.h5 file")
    add_data_argument(parser, default_help="the data it was trained on")
    add_split_arguments(parser, "seed of the held-out split (default: the one recorded at training)")
    add_threshold_argument(parser, "default: the model's; ")
    parser.add_argument("--limit", type=positive_int, default=None)
    parser.add_argument("--tokenizer", default=None, help="tokenizer.json (default: next to MODEL)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args):
    folder, config, recorded = model_record(args.model)
    from keras_skim.datasets import DatasetUnavailableError, DataSourceError
    from keras_skim.datasets.registry import resolve_data
    from keras_skim.models.text_classifier.text_classifier_training import evaluate_model, flop_summary, load_encoded

    model_file = folder.model
    model = load_text_model(folder, "evaluate")
    if args.data is None and not recorded:
        raise CliError(f"{args.model}: no train_config.json to tell the dataset (pass --data)")
    try:
        source = resolve_data(args.data, split_seed=args.split_seed, recorded=recorded, labelled=True)
    except (DatasetUnavailableError, DataSourceError) as err:
        raise data_error(err) from None
    dataset = source.spec
    tokenizer = text_tokenizer(model, args.tokenizer, folder)
    own_report = family_command(model, "evaluate")
    if own_report is not None:
        return own_report(args, model, model_file, tokenizer, source, config)
    outputs = model.outputs[0].shape[-1]
    if max(outputs, 2) != len(source.classes):
        raise CliError(
            f"{model_file}: {max(outputs, 2)} classes, but {dataset} has "
            f"{len(source.classes)} ({', '.join(source.classes)})"
        )
    max_length = model.inputs[0].shape[1] or (config.max_length if config else None) or tokenizer.max_length or 400
    try:
        ids, labels, _ = load_encoded(source, tokenizer, args.split, max_length, args.limit)
    except (DatasetUnavailableError, ValueError) as err:
        raise data_error(err) from None
    if is_stack(model) and skim_directions(model):
        result = _evaluate_stack(model, ids, labels, args.threshold)
    else:
        result = evaluate_model(model, ids, labels, threshold=args.threshold)
        result["flop_r"] = flop_summary(model, result["skim_rate"])["flop_r"]
    result.update(
        {"dataset": dataset, "split": args.split, "examples": int(len(labels)), "classes": list(source.classes)}
    )
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        threshold = result.get("threshold")
        print(
            f"{model_file} on {source.describe(args.split)} ({len(labels)} texts, "
            f"{_classes(source)})" + (f", threshold {threshold:g}" if threshold is not None else "")
        )
        print(f"  accuracy  {result['accuracy']:.4f}")
        print(f"  skim rate {result['skim_rate']:.4f}" + (" (all layers and directions)" if "layers" in result else ""))
        for row in result.get("layers", []):
            print(f"    layer {row['layer']} {row['direction']:<8} {row['skim_rate']:.4f}  ({row['name']})")
        print(f"  Flop-R    {result['flop_r']:.2f}x")
    return 0


def _evaluate_stack(model, ids, labels, threshold):
    """Accuracy, the skim rate of every layer and direction and Flop-R over
    all of them, in one compiled pass (a stacked or bidirectional model)."""
    import numpy as np

    from keras_skim.models.skim_rnn.skim_controls import skim_cells
    from keras_skim.models.skim_rnn.skim_statistics import skim_predictions
    from keras_skim.models.text_classifier.text_classifier_training import predicted_classes

    logits, stats = skim_predictions(model, ids, threshold=threshold)
    truth = np.rint(np.asarray(labels, np.float64)).astype(np.int32)
    layers = layer_rows(model, stats)
    return {
        "accuracy": float(np.mean(predicted_classes(logits) == truth)) if len(truth) else 0.0,
        "skim_rate": stats["skim_rate"],
        "threshold": skim_cells(model)[0].threshold if threshold is None else threshold,
        "layers": layers,
        "flop_r": stack_flop_r(model, [row["skim_rate"] for row in layers]),
    }
