"""`keras-skim evaluate`: accuracy, skim rate and Flop-R at a threshold."""
import json

from keras_skim.cli.errors import CliError
from keras_skim.cli.model_args import (
    THRESHOLD_HELP,
    load_model_or_fail,
    load_tokenizer_or_fail,
    model_folder,
    non_negative_float,
    positive_int,
    train_config_of,
)


def add_arguments(parser):
    parser.add_argument("model", metavar="MODEL", help="model folder or .keras/.h5 file")
    parser.add_argument("--data", choices=["rotten_tomatoes", "imdb"], default=None,
                        help="dataset (default: the one it was trained on)")
    parser.add_argument("--split", default="test")
    parser.add_argument("--threshold", type=non_negative_float, default=None,
                        help=THRESHOLD_HELP + " (default: the model's)")
    parser.add_argument("--limit", type=positive_int, default=None)
    parser.add_argument("--tokenizer", default=None, help="tokenizer.json (default: next to MODEL)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args):
    folder = model_folder(args.model)
    config = train_config_of(folder)
    dataset = args.data or (config.dataset if config else None)
    if dataset is None:
        raise CliError(f"{args.model}: no train_config.json to tell the dataset (pass --data)")
    model_file = folder.model
    model = load_model_or_fail(model_file)
    tokenizer = load_tokenizer_or_fail(args.tokenizer, folder)
    from keras_skim.datasets import DatasetUnavailableError
    from keras_skim.training.text_training import evaluate_model, flop_summary, load_encoded

    max_length = model.inputs[0].shape[1] or (config.max_length if config else None) or tokenizer.max_length or 400
    try:
        ids, labels, _ = load_encoded(dataset, tokenizer, args.split, max_length, args.limit)
    except (DatasetUnavailableError, ValueError) as err:
        raise CliError(str(err)) from None
    result = evaluate_model(model, ids, labels, threshold=args.threshold)
    result["flop_r"] = flop_summary(model, result["skim_rate"])["flop_r"]
    result.update({"dataset": dataset, "split": args.split, "examples": int(len(labels))})
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        threshold = result.get("threshold")
        print(f"{model_file} on {dataset}/{args.split} ({len(labels)} texts)"
              + (f", threshold {threshold:g}" if threshold is not None else ""))
        print(f"  accuracy  {result['accuracy']:.4f}")
        print(f"  skim rate {result['skim_rate']:.4f}")
        print(f"  Flop-R    {result['flop_r']:.2f}x")
    return 0
