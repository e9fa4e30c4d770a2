"""The data options shared by train, evaluate, show, bench and demo
(TensorFlow-free); their names and help come from the dataset registry."""

from keras_skim.cli.errors import CliError
from keras_skim.cli.model_args import non_negative_int
from keras_skim.datasets.registry import DATA_HELP, SPLIT_HELP, SPLITS


def add_data_argument(parser_or_group, default=None, default_help=None):
    """`--data DATA`: a registry name, `tfds:NAME`, a file or a folder."""
    suffix = f" (default: {default_help or default})" if (default or default_help) else ""
    parser_or_group.add_argument("--data", default=default, metavar="DATA", help=DATA_HELP + suffix)


def add_split_arguments(parser, split_seed_help):
    """`--split` and `--split-seed` for commands that read a split."""
    parser.add_argument("--split", choices=SPLITS, default="test", help=SPLIT_HELP)
    add_split_seed_argument(parser, split_seed_help)


def add_split_seed_argument(parser, help_text):
    parser.add_argument("--split-seed", type=non_negative_int, default=None, metavar="N", help=help_text)


def data_error(err):
    """A one-line CliError from a data-layer error."""
    return CliError(" ".join(str(err).split()))
