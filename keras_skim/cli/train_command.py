"""`keras-skim train`: train a skim model, a Structural-Jump-LSTM or a baseline on text.

The `--cell` choices and their defaults come from
`keras_skim.training.cell_kinds`; options that only some kinds have are
refused (one line, exit 2) for the others rather than silently ignored.
"""

from keras_skim.cli.data_args import add_data_argument, add_split_seed_argument, data_error
from keras_skim.cli.errors import CliError
from keras_skim.cli.model_args import (
    THRESHOLD_HELP,
    non_negative_float,
    non_negative_int,
    positive_int,
    seed_value,
    sequence_length,
    unit_interval,
    vocabulary_tokens,
)
from keras_skim.datasets.registry import MAX_LENGTH_HELP
from keras_skim.training.cell_kinds import CELL_HELP, CELLS, STRUCTURAL_JUMP, cell_kind

# Defaults of the options that only some cells have (None in argparse, so
# that an option given for the wrong cell can be told from its default).
SKIM_DEFAULTS = {"small_units": 10, "gamma": 0.01, "threshold": 0.5}
TEXT_DEFAULTS = {"epochs": 5}
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
    "resume": None,
    "run_name": None,
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


def add_arguments(parser):
    add_data_argument(parser, default="rotten_tomatoes")
    add_split_seed_argument(
        parser,
        "seed of the stratified validation/test hold-out of data without "
        "its own split (default 0; recorded for evaluate/show)",
    )
    parser.add_argument("--cell", choices=list(CELLS), default="skim-lstm", help=CELL_HELP)
    parser.add_argument(
        "--units",
        "-d",
        type=positive_int,
        default=None,
        help="state size d (default " + ", ".join(f"{k.units} {name}" for name, k in CELLS.items()) + ")",
    )
    parser.add_argument(
        "--epochs",
        type=positive_int,
        default=None,
        help=f"training epochs (default {TEXT_DEFAULTS['epochs']}; sj-lstm has "
        "--schedule and its step options instead)",
    )
    parser.add_argument(
        "--batch-size", type=positive_int, default=None, help="default 64; sj-lstm: the paper's 32 (100 for imdb)"
    )
    parser.add_argument(
        "--learning-rate",
        type=non_negative_float,
        default=None,
        help="default 0.001 (Adam); sj-lstm: 0.0005 in both phases (the paper's RMSprop)",
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
        help="keep the (GloVe) embedding fixed instead of fine-tuning it (sj-lstm always freezes it for speed reading)",
    )
    parser.add_argument(
        "--no-early-stopping",
        dest="early_stopping",
        action="store_false",
        help="train all epochs instead of stopping on validation accuracy (sj-lstm: "
        "in full reading; the best epoch is kept either way)",
    )
    parser.add_argument(
        "--limit", type=positive_int, default=None, help="train on a class-balanced subset of this size"
    )
    parser.add_argument("--seed", type=seed_value, default=0)
    parser.add_argument("-o", "--output", required=True, help="model folder to write")
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace the output folder if keras-skim wrote it (never a folder with other files)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bars")

    skim = parser.add_argument_group("skim cells (skim-lstm, skim-gru)")
    skim.add_argument(
        "--small-units",
        type=non_negative_int,
        default=None,
        help=f"d' (default {SKIM_DEFAULTS['small_units']}; 0 = skip)",
    )
    skim.add_argument(
        "--gamma", type=non_negative_float, default=None, help=f"skim-loss weight (default {SKIM_DEFAULTS['gamma']})"
    )
    skim.add_argument(
        "--threshold",
        type=non_negative_float,
        default=None,
        help=THRESHOLD_HELP + f" (default {SKIM_DEFAULTS['threshold']})",
    )

    jump = parser.add_argument_group("Structural-Jump-LSTM (sj-lstm)")
    jump.add_argument(
        "--schedule",
        choices=["default", "authors"],
        default=None,
        help="training schedule in steps (default: 'default', up to 2,000 full-read and 3,000 speed-read "
        "steps, validation every 100, delta annealed over 1,500 steps, the speed-read model kept (and "
        "patience counted) only from step 1,500 on; 'authors': the authors' code, up to 30,999 speed-read steps, "
        "validation every 200, patience 100 validations, delta annealed over 15,499 steps); phase 1 "
        "keeps the best validation accuracy, phase 2 the best validation reward; resumable with --resume",
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
        "--resume",
        action="store_true",
        default=None,
        help="continue the run of this command from its checkpoint (written at every validation and on "
        "SIGINT/SIGTERM under $KERAS_SKIM_CACHE/runs, default ~/.cache/keras_skim/runs)",
    )
    jump.add_argument(
        "--run-name", default=None, help="name of the run's checkpoint folder (default: from the output folder)"
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
        type=positive_int,
        default=None,
        help=f"hidden size of each agent (default {JUMP_DEFAULTS['agent_units']})",
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
    from keras_skim.training.text_training import data_input_paths

    kind = cell_kind(args.cell)
    jumps = kind.trainer == STRUCTURAL_JUMP
    if jumps:
        _refuse(args, SKIM_DEFAULTS, args.cell, " (its agents decide what to read; there is no threshold)")
        _refuse(args, TEXT_DEFAULTS, args.cell, " (use --schedule or --speed-read-steps)")
        _fill(args, JUMP_DEFAULTS)
    else:
        _refuse(args, JUMP_DEFAULTS, args.cell, " (only to sj-lstm)")
        _fill(args, SKIM_DEFAULTS)  # a baseline records them unused, as before
        _fill(args, TEXT_DEFAULTS)
    units = args.units or kind.units
    learning_rate = kind.learning_rate if args.learning_rate is None else args.learning_rate
    batch_size = args.batch_size or kind.batch_size
    output_folder.check_output_folder(args.output, force=args.force, inputs=data_input_paths(args.data))
    if kind.skims and args.small_units >= units:
        raise CliError(f"--small-units ({args.small_units}) must be smaller than --units ({units})")
    if jumps:
        _check_jump_schedule(args)
    from keras_skim.datasets import DatasetUnavailableError, DataSourceError

    try:
        if jumps:
            return _train_structural_jump(args, units, learning_rate, batch_size)
        from keras_skim.training.text_training import train_text_model

        results = train_text_model(
            args.output,
            dataset=args.data,
            cell=args.cell,
            units=units,
            small_units=args.small_units,
            gamma=args.gamma,
            threshold=args.threshold,
            epochs=args.epochs,
            batch_size=batch_size,
            learning_rate=learning_rate,
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


def _check_jump_schedule(args):
    """Epochs or steps, not both; fills the epoch counts of an epoch schedule."""
    epochs = [name for name in ("full_read_epochs", "speed_read_epochs") if getattr(args, name) is not None]
    steps = [name for name in ("schedule", "resume", "run_name", *STEP_OPTIONS) if getattr(args, name) is not None]
    if epochs and steps:
        raise CliError(
            f"{', '.join(_flag(n) for n in epochs)} (a schedule in epochs) cannot be combined with "
            f"{', '.join(_flag(n) for n in steps)} (a schedule in steps)"
        )
    name = args.run_name
    if name is not None and (not name or name in (".", "..") or "/" in name or "\\" in name):
        raise CliError(f"--run-name must be a folder name without / or \\ (got {name!r})")
    if epochs:
        args.full_read_epochs = 3 if args.full_read_epochs is None else args.full_read_epochs
        args.speed_read_epochs = 10 if args.speed_read_epochs is None else args.speed_read_epochs
        if args.full_read_epochs + args.speed_read_epochs == 0:
            raise CliError("--full-read-epochs and --speed-read-epochs are both 0: nothing to train")
        return
    from keras_skim.training.structural_jump_schedule import StructuralJumpSchedule

    overrides = {name: getattr(args, name) for name in STEP_OPTIONS if getattr(args, name) is not None}
    if args.critic_warmup_steps is not None:
        overrides["critic_warmup_steps"] = args.critic_warmup_steps
    if not args.early_stopping:
        overrides["full_read_patience"] = None
    for name in ("validate_every", "full_read_patience", "speed_read_patience", "entropy_decay_steps"):
        if overrides.get(name) == 0:
            raise CliError(f"{_flag(name)} must be at least 1")
    try:
        args.schedule_steps = StructuralJumpSchedule.preset(args.schedule or "default", **overrides)
    except ValueError as err:
        raise CliError(str(err).replace("_steps", "-steps").replace("full_read", "--full-read")) from None


def _train_structural_jump(args, units, learning_rate, batch_size):
    from keras_skim.training.run_checkpoint import CheckpointMismatch, RunExists, TrainingInterrupted

    try:
        return _run_structural_jump(args, units, learning_rate, batch_size)
    except (RunExists, CheckpointMismatch) as err:
        raise CliError(str(err)) from None
    except TrainingInterrupted as err:
        import sys

        print(
            f"stopped in {err.phase} at step {err.step}; checkpoint in {err.run_dir}: run the same command "
            "with --resume to continue",
            file=sys.stderr,
        )
        return 130


def _run_structural_jump(args, units, learning_rate, batch_size):
    import os

    from keras_skim.training.structural_jump_training import train_structural_jump

    fit_options = {"read_budget": args.read_budget}
    steps = {}
    if args.full_read_epochs is None:
        from keras_skim.training.run_checkpoint import runs_root

        steps = {
            "schedule": args.schedule_steps,
            "resume": bool(args.resume),
            "restart": args.force and not args.resume,
        }
        if args.run_name:
            steps["run_dir"] = os.path.join(runs_root(), args.run_name)
    else:
        fit_options["critic_warmup_steps"] = args.critic_warmup_steps or 0
        if not args.early_stopping:
            fit_options["full_read_patience"] = max(args.full_read_epochs, 1)
    _, results = train_structural_jump(
        args.output,
        dataset=args.data,
        max_length=args.max_length,
        max_tokens=args.max_tokens,
        glove=args.glove,
        units=units,
        agent_units=args.agent_units,
        full_read_epochs=args.full_read_epochs,
        speed_read_epochs=args.speed_read_epochs,
        batch_size=batch_size,
        learning_rate=learning_rate,
        speed_learning_rate=learning_rate,
        limit=args.limit,
        seed=args.seed,
        split_seed=args.split_seed or 0,
        force=args.force,
        verbose=0 if args.quiet else 1,
        model_options={"train_embedding": not args.freeze_embedding},
        fit_options=fit_options,
        **steps,
    )
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
    return 0
