"""`keras-skim train`: train a skim model or an LSTM baseline on text."""
from keras_skim.cli.data_args import add_data_argument, add_split_seed_argument, data_error
from keras_skim.cli.errors import CliError
from keras_skim.cli.model_args import THRESHOLD_HELP, non_negative_float, non_negative_int, positive_int
from keras_skim.datasets.registry import MAX_LENGTH_HELP


def add_arguments(parser):
    add_data_argument(parser, default="rotten_tomatoes")
    add_split_seed_argument(parser, "seed of the stratified validation/test hold-out of data without "
                                    "its own split (default 0; recorded for evaluate/show)")
    parser.add_argument(
        "--cell", choices=["skim-lstm", "skim-gru", "lstm", "gru"], default="skim-lstm",
        help="skim cell, or an lstm/gru baseline",
    )
    parser.add_argument("--units", "-d", type=positive_int, default=100, help="d (default 100)")
    parser.add_argument(
        "--small-units", type=non_negative_int, default=10, help="d' (default 10; 0 = skip)"
    )
    parser.add_argument("--gamma", type=non_negative_float, default=0.01, help="skim-loss weight")
    parser.add_argument("--threshold", type=non_negative_float, default=0.5, help=THRESHOLD_HELP)
    parser.add_argument("--epochs", type=positive_int, default=5)
    parser.add_argument("--batch-size", type=positive_int, default=64)
    parser.add_argument("--learning-rate", type=non_negative_float, default=1e-3)
    parser.add_argument("--max-length", type=positive_int, default=None,
                        help=MAX_LENGTH_HELP)
    parser.add_argument("--max-tokens", type=positive_int, default=20000, help="vocabulary size")
    parser.add_argument("--glove", dest="glove", action="store_true", default=True,
                        help="initialise the embedding with GloVe 6B 50d (default)")
    parser.add_argument("--no-glove", dest="glove", action="store_false")
    parser.add_argument("--freeze-embedding", action="store_true",
                        help="keep the (GloVe) embedding fixed instead of fine-tuning it")
    parser.add_argument("--no-early-stopping", dest="early_stopping", action="store_false",
                        help="train all epochs instead of stopping on validation accuracy")
    parser.add_argument("--limit", type=positive_int, default=None,
                        help="train on a class-balanced subset of this size")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-o", "--output", required=True, help="model folder to write")
    parser.add_argument("--force", action="store_true",
                        help="replace the output folder if keras-skim wrote it (never a folder with other files)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


def run(args):
    from keras_skim import contracts

    contracts.check_output_folder(args.output, force=args.force)
    if args.cell.startswith("skim") and args.small_units >= args.units:
        raise CliError(
            f"--small-units ({args.small_units}) must be smaller than --units ({args.units})"
        )
    from keras_skim.datasets import DatasetUnavailableError, DataSourceError
    from keras_skim.training.text_training import train_text_model

    try:
        results = train_text_model(
            args.output,
            dataset=args.data,
            cell=args.cell,
            units=args.units,
            small_units=args.small_units,
            gamma=args.gamma,
            threshold=args.threshold,
            epochs=args.epochs,
            batch_size=args.batch_size,
            learning_rate=args.learning_rate,
            max_length=args.max_length,
            max_tokens=args.max_tokens,
            glove=args.glove,
            limit=args.limit,
            seed=args.seed,
            split_seed=args.split_seed or 0,
            force=args.force,
            verbose=0 if args.quiet else 1,
            train_embedding=not args.freeze_embedding,
            early_stopping=args.early_stopping,
        )
    except (DatasetUnavailableError, DataSourceError) as err:
        raise data_error(err) from None
    test = results["test"]
    print(
        f"wrote {args.output}: test accuracy {test['accuracy']:.4f}, "
        f"skim rate {test['skim_rate']:.3f}, Flop-R {test['flop_r']:.2f}x, "
        f"{results['seconds_per_epoch']:.1f} s/epoch"
    )
    return 0
