"""`keras-skim train --task cloze` and `keras-skim evaluate MODEL` of its folders (`model_kinds.TASKS`).

The reader is `--cell` (any kind with a Keras layer: `cloze_qa.READER_CELLS`); `--data` is a file in the
Children's Book Test's text format (CBT's own, or one `benchmarks/build_cloze_set.py` wrote), with its
`_valid`/`_test` siblings where they exist.
"""

import json

from keras_skim.cli.cloze_args import cloze_data_file, evaluation_questions
from keras_skim.cli.errors import CliError
from keras_skim.cli.task_args import refuse_unused_options, task_settings, write_task_record

# The reader's defaults where the command leaves an option out (Seo et al. 2018, Table 5: d = 200).
DEFAULTS = {"units": 200, "small_units": 10, "gamma": 0.01, "threshold": 0.5, "epochs": 5, "batch_size": 32}


# Options of `keras-skim train` that a cloze reader has no use for, with the value each has when not given.
UNUSED = {"patience_steps": None, "freeze_embedding": False, "early_stopping": True, "split_seed": None}


def training_config(args):
    """The `ClozeTrainingConfig` of `keras-skim train --task cloze`'s options."""
    from keras_skim.models.cloze_qa.cloze_qa import READER_CELLS
    from keras_skim.models.cloze_qa.cloze_training import ClozeTrainingConfig

    refuse_unused_options(args, "cloze", DEFAULTS, UNUSED)
    if args.cell not in READER_CELLS:
        raise CliError(f"--cell {args.cell} does not apply to --task cloze; expected one of {', '.join(READER_CELLS)}")
    settings = task_settings(args, DEFAULTS)
    if settings["small_units"] >= settings["units"]:
        raise CliError(f"--small-units ({settings['small_units']}) must be smaller than --units ({settings['units']})")
    return ClozeTrainingConfig(
        cell=args.cell,
        learning_rate=1e-3 if args.learning_rate is None else args.learning_rate,
        max_length=args.max_length or ClozeTrainingConfig.max_length,
        max_tokens=args.max_tokens,
        limit=args.limit,
        seed=args.seed,
        **settings,
    )


def train(args):
    """Trains a `ClozeQA` and writes its model folder; prints the test accuracy and skim rate."""
    from keras_skim import output_folder
    from keras_skim.models.cloze_qa.cloze_training import train_cloze

    path = cloze_data_file(args)
    config = training_config(args)
    with output_folder.staged_output_dir(args.output, force=args.force, inputs=[path]) as stage:
        try:
            results = train_cloze(path, config, stage, verbose=0 if args.quiet else 2)
        except ValueError as err:
            raise CliError(str(err)) from None
        write_task_record(stage, {"task": "cloze", "model": "cloze", "cell": config.cell, "data": str(path)})
    test = results["test"]
    print(
        f"wrote {args.output}: test accuracy {test['accuracy']:.4f} on {test['questions']} questions, "
        f"skim rate {test['skim_rate']:.3f}"
    )
    return 0


def evaluate(args):
    """Prints the accuracy and skim rate of a model folder on a split of a cloze file."""
    from keras_skim.models.cloze_qa.cloze_training import (
        encode_questions,
        evaluate_cloze,
        load_cloze_folder,
    )

    try:
        model, tokenizer, record = load_cloze_folder(args.model)
    except (OSError, ValueError) as err:
        raise CliError(f"{args.model}: not a cloze model folder ({' '.join(str(err).split())})") from None
    path, examples = evaluation_questions(args, record)
    config = record["config"]
    result = evaluate_cloze(model, *encode_questions(examples, tokenizer, config["max_length"]), args.threshold)
    result.update({"data": str(path), "split": args.split, "cell": config["cell"]})
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{args.model} ({config['cell']} reader) on {path} ({args.split}, {result['questions']} questions)")
    print(f"  accuracy  {result['accuracy']:.4f}")
    print(f"  skim rate {result['skim_rate']:.4f}")
    return 0
