"""`keras-skim evaluate`: accuracy, skim rate and Flop-R at a threshold."""
import json

from keras_skim.cli.errors import CliError
from keras_skim.cli.model_args import (
    load_model_or_fail,
    load_tokenizer_or_fail,
    model_paths,
    non_negative_float,
    positive_int,
)


def add_arguments(parser):
    parser.add_argument("model", metavar="MODEL", help="model folder or .keras/.h5 file")
    parser.add_argument("--data", choices=["rotten_tomatoes", "imdb"], default=None,
                        help="dataset (default: the one it was trained on)")
    parser.add_argument("--split", default="test")
    parser.add_argument("--threshold", type=non_negative_float, default=None,
                        help="inference threshold (default: the model's)")
    parser.add_argument("--limit", type=positive_int, default=None)
    parser.add_argument("--tokenizer", default=None, help="tokenizer.json (default: next to MODEL)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args):
    model_file, tokenizer_path, config_path = model_paths(args.model)
    config = {}
    if config_path:
        with open(config_path) as f:
            config = json.load(f).get("arguments", {})
    dataset = args.data or config.get("dataset")
    if dataset is None:
        raise CliError(f"{args.model}: no train_config.json to tell the dataset (pass --data)")
    model = load_model_or_fail(model_file)
    tokenizer = load_tokenizer_or_fail(args.tokenizer or tokenizer_path, model_file)
    from keras_skim.datasets import DatasetUnavailableError
    from keras_skim.training.text_training import evaluate_model, flop_summary, load_encoded

    max_length = model.inputs[0].shape[1] or tokenizer.max_length or 400
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
