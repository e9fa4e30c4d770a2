"""`keras-skim train`: train a model of any kind (`--cell`) on text.

The `--cell` choices and their defaults come from the model-kind table
(`keras_skim.model_kinds`); each family's own options, checks and training
call live in its commands module (`ModelFamily.commands`). Options of
another family are refused (one line, exit 2) rather than silently ignored.
"""

from keras_skim.cli.data_args import add_data_argument, add_split_seed_argument
from keras_skim.cli.errors import CliError
from keras_skim.cli.model_args import (
    MAX_BATCH_SIZE,
    MAX_STATE_UNITS,
    batch_size,
    non_negative_float,
    output_path,
    positive_int,
    seed_value,
    sequence_length,
    state_units,
    vocabulary_tokens,
)
from keras_skim.cli.task_dispatch import add_task_arguments, run_task
from keras_skim.datasets.registry import MAX_LENGTH_HELP
from keras_skim.model_kinds import CELL_HELP, CLI_KINDS, DEFAULT_CELL, FAMILIES, cli_kind, cli_names, load


def _families():
    """{family name: its commands module}, in the table's order."""
    return {name: load(family.commands) for name, family in FAMILIES.items()}


def _help(base, option):
    """A shared option's help: `base`, then what each family says of it."""
    notes = [commands.HELP_NOTES[option] for commands in _families().values() if option in commands.HELP_NOTES]
    return "; ".join([base, *notes])


def add_arguments(parser):
    add_data_argument(parser, default="rotten_tomatoes")
    add_split_seed_argument(
        parser,
        "seed of the stratified validation/test hold-out of data without "
        "its own split (default 0; recorded for evaluate/show)",
    )
    parser.add_argument("--cell", choices=list(CLI_KINDS), default=DEFAULT_CELL, help=CELL_HELP)
    parser.add_argument(
        "--units",
        "-d",
        type=state_units,
        default=None,
        help="state size d, at most "
        + str(MAX_STATE_UNITS)
        + " (default "
        + ", ".join(f"{k.units} {name}" for name, k in CLI_KINDS.items())
        + ")",
    )
    parser.add_argument(
        "--epochs",
        type=positive_int,
        default=None,
        help=_help("training epochs (default 5)", "epochs"),
    )
    parser.add_argument(
        "--batch-size", type=batch_size, default=None, help=_help(f"default 64, at most {MAX_BATCH_SIZE}", "batch_size")
    )
    parser.add_argument(
        "--learning-rate",
        type=non_negative_float,
        default=None,
        help=_help("default 0.001 (Adam)", "learning_rate"),
    )
    parser.add_argument("--max-length", type=sequence_length, default=None, help=MAX_LENGTH_HELP)
    parser.add_argument("--max-tokens", type=vocabulary_tokens, default=20000, help="vocabulary size")
    parser.add_argument(
        "--glove",
        dest="glove",
        action="store_true",
        default=True,
        help="initialise the embedding with GloVe 6B 50d (default)",
    )
    parser.add_argument("--no-glove", dest="glove", action="store_false")
    parser.add_argument(
        "--freeze-embedding",
        action="store_true",
        help=_help("keep the (GloVe) embedding fixed instead of fine-tuning it", "freeze_embedding"),
    )
    parser.add_argument(
        "--no-early-stopping",
        dest="early_stopping",
        action="store_false",
        help=_help("train all epochs instead of stopping on validation accuracy", "early_stopping"),
    )
    parser.add_argument(
        "--limit", type=positive_int, default=None, help="train on a class-balanced subset of this size"
    )
    parser.add_argument("--seed", type=seed_value, default=0)
    parser.add_argument("-o", "--output", type=output_path, required=True, help="model folder to write")
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace the output folder if keras-skim wrote it (never a folder with other files)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bars")

    for commands in _families().values():
        commands.add_arguments(parser)
    add_task_arguments(parser)


def _given(args, defaults):
    return [name for name in defaults if getattr(args, name) is not None]


def _flag(name):
    return "--" + name.replace("_", "-")


def _refuse(args, defaults, cell, instead=""):
    given = _given(args, defaults)
    if given:
        flags = ", ".join(_flag(name) for name in given)
        verb = "does" if len(given) == 1 else "do"
        raise CliError(f"{flags} {verb} not apply to --cell {cell}{instead}")


def _fill(args, defaults):
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)


def run(args):
    from keras_skim import output_folder
    from keras_skim.training.pipeline import data_input_paths

    status = run_task("train", args)
    if status is not None:
        return status
    kind = cli_kind(args.cell)
    families = _families()
    commands = families[kind.family]
    for name, other in families.items():
        if other is commands:
            continue
        only_to = f" (only to {', '.join(cli_names(FAMILIES[name]))})"
        for group, defaults in other.OPTION_GROUPS.items():
            _refuse(args, defaults, args.cell, commands.refusal(group) or only_to)
    for defaults in commands.OPTION_GROUPS.values():
        _fill(args, defaults)  # a baseline records the skim options unused, as before
    units = args.units or kind.units
    learning_rate = kind.learning_rate if args.learning_rate is None else args.learning_rate
    batch_size = args.batch_size or kind.batch_size
    output_folder.check_output_folder(args.output, force=args.force, inputs=data_input_paths(args.data))
    commands.check(args, kind, units)
    from keras_skim.cli.data_args import data_error
    from keras_skim.datasets import DatasetUnavailableError, DataSourceError

    try:
        return commands.train(args, kind, units, learning_rate, batch_size)
    except (DatasetUnavailableError, DataSourceError) as err:
        raise data_error(err) from None
