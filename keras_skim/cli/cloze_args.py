"""The cloze file a `--task cloze` command reads, and the questions `evaluate` scores, for every cloze
reader: the same `--data` / `--split` / `--split-seed` / `--limit` rules whichever family trained it."""

from keras_skim.cli.errors import CliError
from keras_skim.datasets.cloze_files import cloze_path


def cloze_data_file(args):
    """The path of `--data`, a cloze file in CBT's text format; CliError (one line) otherwise."""
    path = cloze_path(args.data)
    if path is None:
        raise CliError(f"--task cloze needs --data FILE, a cloze file in CBT's text format; got {args.data!r}")
    return path


def evaluation_questions(args, record):
    """(cloze file, questions) that `keras-skim evaluate` scores a cloze model folder on (`record`: its
    task record): `--data` or the training file, split as in training (`--split-seed` aside), `--split`
    (a split, or all of them), cut to `--limit`."""
    from keras_skim.datasets.cloze_splits import load_splits

    path = cloze_data_file(args) if args.data is not None else cloze_path(record["data"])
    if path is None:
        raise CliError(f"{args.model}: its training file {record['data']} is gone (pass --data)")
    seed = record["config"]["seed"] if args.split_seed is None else args.split_seed
    try:
        splits = load_splits(path, seed)
    except ValueError as err:
        raise CliError(str(err)) from None
    examples = splits[args.split] if args.split in splits else [e for s in splits.values() for e in s]
    return path, examples[: args.limit] if args.limit else examples
