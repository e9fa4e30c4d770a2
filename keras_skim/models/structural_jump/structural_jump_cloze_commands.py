"""`keras-skim train --task cloze --model sj-lstm` and `keras-skim evaluate` of its folders
(`model_kinds.TASKS`: the cloze task's `model_commands`).

`--data` is a file in the Children's Book Test's text format, with its `_valid`/`_test` siblings where they
exist; training runs the family's schedule in steps (`--schedule` and its step options), always resumable
(`--resume`, `--run-name`).
"""

import json
import os

from keras_skim.cli.cloze_args import cloze_data_file, evaluation_questions
from keras_skim.cli.errors import CliError
from keras_skim.cli.task_args import refuse_unused_options, task_settings, write_task_record
from keras_skim.model_kinds import DEFAULT_CELL
from keras_skim.models.structural_jump.structural_jump_commands import NO_THRESHOLD, STEP_OPTIONS, check, interrupted

MODEL = "sj-lstm"
# The reader's defaults where the command leaves an option out (Hansen et al. 2019 on CBT: LSTM 128,
# RMSprop 0.001; the cloze readers' document length).
DEFAULTS = {"units": 128, "learning_rate": 1e-3, "batch_size": 32, "max_length": 600, "agent_units": 25}
# The family's options it reads besides (the schedule in steps, the reward and the selection).
JUMP_OPTIONS = ("schedule", *STEP_OPTIONS, "rolling_weight", "critic_warmup_steps", "read_budget")
# Shared options of `keras-skim train` it has no use for, with their values when not given.
UNUSED = {"freeze_embedding": False, "split_seed": None}


def training_config(args):
    """The `StructuralJumpClozeConfig` of the command's options (one-line refusals of the others)."""
    from keras_skim.models.structural_jump.structural_jump_cloze_training import StructuralJumpClozeConfig

    refuse_unused_options(args, "cloze", {**DEFAULTS, **dict.fromkeys(JUMP_OPTIONS)}, UNUSED)
    if args.cell not in (DEFAULT_CELL, MODEL):
        raise CliError(
            f"--cell {args.cell} does not apply to --task cloze --model {MODEL} (a Structural-Jump-LSTM reader)"
        )
    settings = task_settings(args, DEFAULTS)
    args.full_read_epochs = args.speed_read_epochs = None  # a schedule in steps, always
    check(args, None, settings["units"])
    return StructuralJumpClozeConfig(
        max_tokens=args.max_tokens,
        glove=args.glove,
        limit=args.limit,
        seed=args.seed,
        read_budget=args.read_budget,
        schedule=args.schedule_steps,
        **settings,
    )


def train(args):
    """Trains a `StructuralJumpClozeQA` and writes its model folder; prints the test accuracy and what
    was read (130 and how to resume when a signal stopped it)."""
    from keras_skim import output_folder
    from keras_skim.cli.run_args import check_run_name, run_options
    from keras_skim.models.structural_jump.structural_jump_cloze_training import train_structural_jump_cloze
    from keras_skim.training.run_checkpoint import CheckpointError, TrainingInterrupted, default_run_name, runs_root

    path = cloze_data_file(args)
    config = training_config(args)
    check_run_name(args.run_name)
    run = run_options(args, os.path.join(runs_root(), default_run_name(args.output)))
    try:
        with output_folder.staged_output_dir(args.output, force=args.force, inputs=[path]) as stage:
            try:
                results = train_structural_jump_cloze(path, config, stage, verbose=0 if args.quiet else 1, **run)
            except ValueError as err:
                raise CliError(str(err)) from None
            write_task_record(stage, {"task": "cloze", "model": MODEL, "data": str(path)})
    except CheckpointError as err:
        raise CliError(str(err)) from None
    except TrainingInterrupted as err:
        return interrupted(err)
    test = results["test"]
    print(
        f"wrote {args.output}: test accuracy {test['accuracy']:.4f} on {test['examples']} questions, "
        f"read {test['read_fraction']:.1%}, skipped {test['skip_fraction']:.1%}, "
        f"jumped {test['jump_fraction']:.1%} of the document words"
    )
    return 0


def evaluate(args):
    """Prints the accuracy and the read / skip / jump fractions of the document words of a model folder
    on a split of a cloze file."""
    from keras_skim.models.structural_jump.structural_jump_cloze_training import encode_cloze, load_folder
    from keras_skim.models.structural_jump.structural_jump_evaluation import evaluate_structural_jump

    if args.threshold is not None:
        raise CliError(f"--threshold does not apply to {args.model}: {NO_THRESHOLD}")
    try:
        model, tokenizer, record = load_folder(args.model)
    except (OSError, ValueError) as err:
        raise CliError(f"{args.model}: not a cloze model folder ({' '.join(str(err).split())})") from None
    path, examples = evaluation_questions(args, record)
    config = record["config"]
    result = evaluate_structural_jump(model, *encode_cloze(examples, tokenizer, config))
    result.update({"data": str(path), "split": args.split, "model": MODEL})
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    per_doc = result["per_document"]
    print(
        f"{args.model} (Structural-Jump-LSTM reader) on {path} ({args.split}, {result['examples']} questions, "
        f"{result['words']} document words; the query is always read)"
    )
    print(f"  accuracy  {result['accuracy']:.4f}")
    for name in ("read", "skip", "jump"):
        fraction = f"{name}_fraction"
        print(f"  {name:<8}  {result[fraction]:.1%} of the document words (per-question mean {per_doc[fraction]:.1%})")
    return 0
