"""The Structural-Jump-LSTM family's pieces of `keras-skim train`, `evaluate`
and `show`: its training options (a schedule in steps or epochs, resumable),
and its reports of read, skipped and jumped words.

`keras_skim.model_kinds.FAMILIES` names this module; the commands ask the
table for it and name no family.
"""

import json
import sys

from keras_skim import contracts
from keras_skim.cli.errors import CliError
from keras_skim.cli.model_args import (
    MAX_STATE_UNITS,
    non_negative_float,
    non_negative_int,
    state_units,
    unit_interval,
)

# Defaults of the options only this family has (None in argparse, so that an
# option given for another family's kind can be told from its default).
JUMP_DEFAULTS = {
    "full_read_epochs": None,
    "speed_read_epochs": None,
    "agent_units": 25,
    "read_budget": None,
    "critic_warmup_steps": None,
    "schedule": None,
    "full_read_steps": None,
    "speed_read_steps": None,
    "validate_every": None,
    "full_read_patience": None,
    "speed_read_patience": None,
    "entropy_decay_steps": None,
    "rolling_weight": None,
}
OPTION_GROUPS = {"jump": JUMP_DEFAULTS}
# What the shared options' help says of this family.
HELP_NOTES = {
    "epochs": "sj-lstm has --schedule and its step options instead",
    "batch_size": "sj-lstm: the paper's 32 (100 for imdb)",
    "learning_rate": "sj-lstm: 0.0005 in both phases (the paper's RMSprop)",
    "freeze_embedding": "sj-lstm always freezes it for speed reading",
    "early_stopping": "sj-lstm: in full reading; the best epoch is kept either way",
    "resume": "sj-lstm: its schedules in steps are always checkpointed, at every validation and on SIGINT/SIGTERM",
}
# Why the other families' option groups do not apply.
_REFUSALS = {
    "skim": " (its agents decide what to read; there is no threshold)",
    "text": " (use --schedule or --speed-read-steps)",
}
# The schedule options in steps (`StructuralJumpSchedule` fields).
STEP_OPTIONS = (
    "full_read_steps",
    "speed_read_steps",
    "validate_every",
    "full_read_patience",
    "speed_read_patience",
    "entropy_decay_steps",
)
NO_THRESHOLD = "a Structural-Jump-LSTM's agents decide greedily what to read, skip and jump; no threshold applies"


def add_arguments(parser):
    jump = parser.add_argument_group("Structural-Jump-LSTM (sj-lstm)")
    jump.add_argument(
        "--schedule",
        choices=["default", "authors"],
        default=None,
        help="training schedule in steps (default: 'default', up to 2,000 full-read and 3,000 speed-read "
        "steps, validation every 100, delta annealed over 1,500 steps, the speed-read model kept (and patience "
        "counted) only from step 1,500 on; 'authors': the authors' code, up to 30,999 speed-read steps, "
        "validation every 200, patience 100 validations, delta annealed over 15,499 steps, rolling weight 0.1); "
        "phase 1 keeps the best validation accuracy; phase 2 with 'default' the least-read validation within "
        "one point of that accuracy, lowering the reading cost (rolling weight from 0.1, x1.5 a rung) while "
        "validations fall short and keeping the full reader when none gets there; with 'authors' the best "
        "validation reward; resumable with --resume",
    )
    for name, help_text in (
        ("full-read-steps", "phase 1 (every word read) step budget"),
        ("speed-read-steps", "phase 2 (the agents act, embedding frozen) step budget"),
        ("validate-every", "steps between validations"),
        ("full-read-patience", "validations without a better accuracy before phase 1 stops"),
        ("speed-read-patience", "validations without a better reward before phase 2 stops"),
        ("entropy-decay-steps", "speed-read steps over which delta decays from 0.1 to 0.005"),
    ):
        jump.add_argument(
            "--" + name, type=non_negative_int, default=None, metavar="N", help=help_text + " (overrides --schedule)"
        )
    jump.add_argument(
        "--rolling-weight",
        type=non_negative_float,
        default=None,
        metavar="W",
        help="the reward's weight of the word costs: higher reads less (default 0.1, the paper's; "
        "'default' starts its ladder there; the paper's grid: 0.05, 0.1, 0.15)",
    )
    jump.add_argument(
        "--full-read-epochs",
        type=non_negative_int,
        default=None,
        metavar="N",
        help="train in epochs instead of steps: phase 1 epochs (the best validation accuracy is kept; not resumable)",
    )
    jump.add_argument(
        "--speed-read-epochs",
        type=non_negative_int,
        default=None,
        metavar="N",
        help="train in epochs instead of steps: phase 2 epochs (the best validation reward is kept)",
    )
    jump.add_argument(
        "--agent-units",
        type=state_units,
        default=None,
        help=f"hidden size of each agent (default {JUMP_DEFAULTS['agent_units']}, at most {MAX_STATE_UNITS})",
    )
    jump.add_argument(
        "--read-budget",
        type=unit_interval,
        default=None,
        metavar="FRACTION",
        help="keep instead the speed-read epoch with the best validation accuracy among "
        "those reading at most this fraction of the validation words",
    )
    jump.add_argument(
        "--critic-warmup-steps",
        type=non_negative_int,
        default=None,
        metavar="N",
        help="speed-read steps without the actor loss while the critics learn (default 0)",
    )


def refusal(group):
    """Why another family's option group does not apply here."""
    return _REFUSALS.get(group)


def _flag(name):
    return "--" + name.replace("_", "-")


def check(args, kind, units):
    """Epochs or steps, not both; fills the epoch counts of an epoch schedule
    or `args.schedule_steps` of a schedule in steps."""
    epochs = [name for name in ("full_read_epochs", "speed_read_epochs") if getattr(args, name) is not None]
    steps = [name for name in ("schedule", "resume", "run_name", *STEP_OPTIONS) if getattr(args, name) is not None]
    if epochs and steps:
        raise CliError(
            f"{', '.join(_flag(n) for n in epochs)} (a schedule in epochs) cannot be combined with "
            f"{', '.join(_flag(n) for n in steps)} (a schedule in steps)"
        )
    if epochs:
        args.full_read_epochs = 3 if args.full_read_epochs is None else args.full_read_epochs
        args.speed_read_epochs = 10 if args.speed_read_epochs is None else args.speed_read_epochs
        if args.full_read_epochs + args.speed_read_epochs == 0:
            raise CliError("--full-read-epochs and --speed-read-epochs are both 0: nothing to train")
        return
    from keras_skim.models.structural_jump.structural_jump_schedule import StructuralJumpSchedule

    overrides = {name: getattr(args, name) for name in STEP_OPTIONS if getattr(args, name) is not None}
    for name in ("critic_warmup_steps", "rolling_weight"):
        if getattr(args, name) is not None:
            overrides[name] = getattr(args, name)
    if not args.early_stopping:
        overrides["full_read_patience"] = None
    for name in ("validate_every", "full_read_patience", "speed_read_patience", "entropy_decay_steps"):
        if overrides.get(name) == 0:
            raise CliError(f"{_flag(name)} must be at least 1")
    try:
        args.schedule_steps = StructuralJumpSchedule.preset(args.schedule or "default", **overrides)
    except ValueError as err:
        raise CliError(str(err).replace("_steps", "-steps").replace("full_read", "--full-read")) from None


def train(args, kind, units, learning_rate, batch_size):
    """Trains and writes the model folder; prints its one-line summary (130
    and how to resume when stopped by a signal)."""
    from keras_skim.training.run_checkpoint import CheckpointError, TrainingInterrupted

    try:
        return _train(args, units, learning_rate, batch_size)
    except CheckpointError as err:
        raise CliError(str(err)) from None
    except TrainingInterrupted as err:
        return interrupted(err)


def interrupted(err):
    """Says where a `TrainingInterrupted` run stopped and how to resume it; the exit code, 130."""
    if err.run_dir is None:  # a schedule in epochs writes no checkpoint
        print(f"stopped in {err.phase} at step {err.step}; a run in epochs cannot be resumed", file=sys.stderr)
    else:
        print(
            f"stopped in {err.phase} at step {err.step}; checkpoint in {err.run_dir}: run the same command "
            "with --resume to continue",
            file=sys.stderr,
        )
    return 130


def training_config(args, units, learning_rate, batch_size):
    """The `StructuralJumpTrainingConfig` of `keras-skim train --cell sj-lstm`'s options
    (after `check`): a schedule in steps, or the epoch counts."""
    from keras_skim.models.structural_jump.structural_jump_config import StructuralJumpTrainingConfig

    fit_options = {"read_budget": args.read_budget}
    if args.full_read_epochs is None:
        phases = {"schedule": args.schedule_steps}
    else:
        phases = {"full_read_epochs": args.full_read_epochs, "speed_read_epochs": args.speed_read_epochs}
        fit_options["critic_warmup_steps"] = args.critic_warmup_steps or 0
        if not args.early_stopping:
            fit_options["full_read_patience"] = max(args.full_read_epochs, 1)
    return StructuralJumpTrainingConfig(
        max_length=args.max_length,
        max_tokens=args.max_tokens,
        glove=args.glove,
        units=units,
        agent_units=args.agent_units,
        batch_size=batch_size,
        learning_rate=learning_rate,
        speed_learning_rate=learning_rate,
        limit=args.limit,
        seed=args.seed,
        split_seed=args.split_seed or 0,
        model_options=_model_options(args),
        fit_options=fit_options,
        **phases,
    )


def _run_options(args):
    """The run's own options: its verbosity, and for a schedule in steps its checkpoint's."""
    from keras_skim.cli.run_args import run_options

    run = {"force": args.force, "verbose": 0 if args.quiet else 1}
    if args.full_read_epochs is None:  # None: the default folder, from the output folder's name
        run.update(run_options(args))
    return run


def _train(args, units, learning_rate, batch_size):
    from keras_skim.models.structural_jump.structural_jump_training import train_structural_jump_model

    config = training_config(args, units, learning_rate, batch_size)
    _, results = train_structural_jump_model(args.data, config, args.output, **_run_options(args))
    test = results["test"]
    if "seconds_per_step" in results:
        timing = f"{results['steps_run']} steps, {results['seconds_per_step']:.2f} s/step"
    else:
        timing = f"{results['seconds_per_epoch']:.1f} s/epoch"
    print(
        f"wrote {args.output}: test accuracy {test['accuracy']:.4f}, read {test['read_fraction']:.1%}, "
        f"skipped {test['skip_fraction']:.1%}, jumped {test['jump_fraction']:.1%} of the words, "
        f"Flop-r {test['flop_r']:.2f}x, {timing}"
    )
    # What speed reading cost: the kept model's validation beside the full reader's.
    print(results["speed_reading"]["line"])
    return 0


def _model_options(args):
    """The model's own options; a schedule in steps carries the rolling
    weight, one in epochs gives it here."""
    options = {"train_embedding": not args.freeze_embedding}
    if args.full_read_epochs is not None and args.rolling_weight is not None:
        options["rolling_weight"] = args.rolling_weight
    return options


def evaluate(args, model, model_file, tokenizer, source, config):
    """`keras-skim evaluate`: accuracy, read / skip / jump fractions, Flop-r
    and the mean reward of the greedy policy."""
    from keras_skim.cli.data_args import data_error
    from keras_skim.cli.evaluate_command import _classes  # the class names line, as the command prints it
    from keras_skim.datasets import DatasetUnavailableError
    from keras_skim.datasets.encoded_splits import load_encoded
    from keras_skim.models.structural_jump.structural_jump_evaluation import evaluate_structural_jump

    if args.threshold is not None:
        raise CliError(f"--threshold does not apply to {model_file}: {NO_THRESHOLD}")
    if model.num_classes != len(source.classes):
        raise CliError(
            f"{model_file}: {model.num_classes} classes, but {source.spec} has "
            f"{len(source.classes)} ({', '.join(source.classes)})"
        )
    max_length = (config.max_length if config else None) or tokenizer.max_length or 400
    try:
        ids, labels, _ = load_encoded(source, tokenizer, args.split, max_length, args.limit)
    except (DatasetUnavailableError, ValueError) as err:
        raise data_error(err) from None
    result = evaluate_structural_jump(model, ids, labels)
    result.update(
        {
            "model_kind": "structural_jump_lstm",
            "dataset": source.spec,
            "split": args.split,
            "classes": list(source.classes),
        }
    )
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    per_doc = result["per_document"]
    print(
        f"{model_file} on {source.describe(args.split)} ({len(labels)} texts, {_classes(source)}), "
        f"Structural-Jump-LSTM ({result['words']} words; punctuation is not read)"
    )
    print(f"  accuracy     {result['accuracy']:.4f}")
    print(f"  read         {result['read_fraction']:.1%} of the words (per-text mean {per_doc['read_fraction']:.1%})")
    print(f"  skipped      {result['skip_fraction']:.1%} (per-text mean {per_doc['skip_fraction']:.1%})")
    print(f"  jumped       {result['jump_fraction']:.1%} (per-text mean {per_doc['jump_fraction']:.1%})")
    print(f"  Flop-r       {result['flop_r']:.2f}x (per-text mean {result['flop_r_per_document_mean']:.2f}x)")
    print(f"  mean reward  {result['reward']:.4f}")
    return 0


def show(args, model, model_file, tokenizer, text, ids, label, recorded):
    """`keras-skim show`: the read, skipped and jumped words (punctuation,
    which it does not read, plain)."""
    from keras_skim.cli.show_command import JUMP_LEGEND, _prediction, render_html, render_terminal, write_html
    from keras_skim.models.structural_jump.structural_jump_statistics import reading_positions

    if args.threshold is not None:
        raise CliError(f"--threshold does not apply to {model_file}: {NO_THRESHOLD}")
    if max(ids) >= model.vocabulary_size:
        raise CliError(
            f"{model_file}: the tokenizer's ids go past the model's vocabulary "
            f"({model.vocabulary_size}); pass the tokenizer it was trained with"
        )
    positions = reading_positions(model, ids)
    codes = [int(code) for code in positions["status"]]  # the exports' read_mask codes
    words = sum(c != contracts.TOKEN_NOT_A_WORD for c in codes)
    if words == 0:
        raise CliError("the text has no words, only punctuation, which a Structural-Jump-LSTM does not read")
    tokens = tokenizer.tokenize(text)[: len(ids)]
    read = codes.count(contracts.TOKEN_READ)
    skipped = codes.count(contracts.TOKEN_SKIMMED)
    jumped = codes.count(contracts.TOKEN_JUMPED)
    prediction = _prediction(positions["logits"], recorded.get("classes"))
    summary = (
        f"prediction: {prediction}" + (f", label: {label}" if label is not None else "") + "; "
        f"read {read} of {words} words ({read / words:.0%}), skipped {skipped / words:.0%}, "
        f"jumped {jumped / words:.0%}; punctuation is not read"
    )
    color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    print(render_terminal(tokens, codes, color))
    if not color:
        print("(word: read, [word]: skipped, {word}: jumped over)")
    print(summary)
    if args.html:
        page = render_html(
            tokens, codes, "Structural-Jump-LSTM: read, skipped and jumped words", summary, legend=JUMP_LEGEND
        )
        write_html(args, page)
        print(f"wrote {args.html}")
    return 0
