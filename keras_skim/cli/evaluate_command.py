"""`keras-skim evaluate`: accuracy, skim rate and Flop-R at a threshold (a
stacked or bidirectional model's skim rate per layer and direction too,
Flop-R over all of them: the numbers are the family's, its commands'
`evaluation`); a model family with its own report (read / skip / jump
fractions of a jump model) has it in its commands module
(`keras_skim.model_kinds.FAMILIES`)."""

import json

from keras_skim.cli.data_args import add_data_argument, add_split_arguments, data_error
from keras_skim.cli.errors import CliError
from keras_skim.cli.model_args import (
    add_threshold_argument,
    family_command,
    load_model_or_fail,
    model_record,
    positive_int,
    sequence_input_shape,
    text_tokenizer,
)
from keras_skim.cli.task_args import recorded_task
from keras_skim.export.errors import ExportError


def _classes(source):
    """'2 classes: negative, positive': the data's class names, as the model's export records them."""
    names = [str(name) for name in source.classes[:8]] + (["..."] if len(source.classes) > 8 else [])
    return f"{len(source.classes)} classes: {', '.join(names)}"


def add_arguments(parser):
    parser.add_argument(
        "model",
        metavar="MODEL",
        help="model folder, .keras/.h5 file, preset (keras-skim presets) or export folder (keras-skim export)",
    )
    add_data_argument(parser, default_help="the data it was trained on (an export folder needs --data)")
    add_split_arguments(parser, "seed of the held-out split (default: the one recorded at training)")
    add_threshold_argument(parser, "default: the model's; ")
    parser.add_argument("--limit", type=positive_int, default=None)
    parser.add_argument("--tokenizer", default=None, help="tokenizer.json (default: next to MODEL)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args):
    from keras_skim.cli.export_reading import evaluate_export, export_path

    task = recorded_task(args.model)
    if task is not None:  # a model folder of `keras-skim train --task` (keras_skim.model_kinds.TASKS)
        return task.evaluate(args)
    export = export_path(args.model)
    if export is not None:  # an export folder: run through the runtime, without TensorFlow
        return _print_export_result(args, *evaluate_export(args, export))
    folder, config, recorded = model_record(args.model)
    from keras_skim.datasets import DatasetUnavailableError, DataSourceError
    from keras_skim.datasets.encoded_splits import load_encoded
    from keras_skim.datasets.registry import resolve_data

    model_file = folder.model
    model = load_model_or_fail(model_file)
    if sequence_input_shape(model) is not None:  # a model on float sequences reads a sequence data set
        return _evaluate_sequence_model(args, model, model_file, recorded)
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
    try:  # Flop-R is counted over the model's export plan
        result = family_command(model, "evaluation")(model, ids, labels, args.threshold)
    except ExportError as err:
        raise CliError(f"{model_file}: no Flop-R for a model the exporter cannot read ({err})") from None
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


def _evaluate_sequence_model(args, model, model_file, recorded):
    """`keras-skim evaluate` of a model on float sequences, on a sequence data set
    (`keras_skim.datasets.sequence_data`: `--data`, else the one its train_config.json records)."""
    from keras_skim.datasets import DatasetUnavailableError, DataSourceError
    from keras_skim.datasets.sequence_data import load_sequences, sequence_dataset

    name = args.data or recorded.get("source")
    if name is None:
        raise CliError(f"{model_file}: no train_config.json to tell the dataset (pass --data)")
    # The pixel order the model was trained with comes with its own data only.
    permutation_seed = recorded.get("permutation_seed") if name == recorded.get("source") else None
    try:
        entry = sequence_dataset(name)
        if args.split not in entry.splits:
            raise DataSourceError(f"{name} has the splits {', '.join(entry.splits)}; got --split {args.split}")
        sequences, labels = load_sequences(name, args.split, args.limit, permutation_seed=permutation_seed)
    except (DatasetUnavailableError, DataSourceError) as err:
        raise data_error(err) from None
    _check_sequence_fit(model, model_file, sequences, entry)
    try:  # Flop-R over the model's export plan, as for a text model
        result = family_command(model, "evaluation")(model, sequences, labels, args.threshold)
    except ExportError as err:
        raise CliError(f"{model_file}: no Flop-R for a model the exporter cannot read ({err})") from None
    result.update({"dataset": name, "split": args.split, "examples": int(len(labels)), "classes": list(entry.classes)})
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{model_file} on {entry.description}, {args.split} split ({len(labels)} sequences, {_classes(entry)})")
    print(f"  accuracy  {result['accuracy']:.4f}")
    print(f"  Flop-R    {result['flop_r']:.2f}x")
    return 0


def _check_sequence_fit(model, model_file, sequences, entry):
    """Refuses (one line) data whose steps, features or classes the model does not take."""
    steps, features = sequence_input_shape(model)
    if features != sequences.shape[2] or steps not in (None, sequences.shape[1]):
        raise CliError(
            f"{model_file}: the model takes sequences [{steps}, {features}], {entry.name} has "
            f"[{sequences.shape[1]}, {sequences.shape[2]}]"
        )
    outputs = model.outputs[0].shape[-1]
    if max(outputs, 2) != len(entry.classes):
        raise CliError(f"{model_file}: {max(outputs, 2)} classes, but {entry.name} has {len(entry.classes)}")


def _print_export_result(args, result, source, runner):
    """`keras-skim evaluate EXPORT`'s lines (or JSON), as a Keras model's."""
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    threshold = result["threshold"]
    detail = f"threshold {threshold:g}" if threshold is not None else ""
    if runner.jumps:
        detail = f"{runner.kind.title} ({result['words']} words; punctuation is not read)"
    header = f"{result['export']} on {source.describe(args.split)} ({result['examples']} texts, {_classes(source)})"
    print(header + (f", {detail}" if detail else ""))
    print(f"  accuracy  {result['accuracy']:.4f}")
    if runner.jumps:
        for name in ("read", "skip", "jump"):
            print(f"  {name:<9} {result[f'{name}_fraction']:.1%} of the words")
    else:
        layers = result.get("layer_skim_rates", {})
        print(f"  skim rate {result['skim_rate']:.4f}" + (" (all layers and directions)" if layers else ""))
        for name, rate in layers.items():
            layer, direction = runner.read_mask_layout[name]
            print(f"    layer {layer} {direction:<8} {rate:.4f}  ({name})")
    flop_r = result.get("flop_r")
    print(f"  Flop-R    {'-' if flop_r is None else format(flop_r, '.2f') + 'x'}")
    return 0
