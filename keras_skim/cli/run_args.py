"""`keras-skim train`'s checkpoint options, `--resume` and `--run-name`,
which every family that checkpoints its runs shares (TensorFlow-free)."""

import os

from keras_skim.cli.errors import CliError

MAX_RUN_NAME_BYTES = 255  # a folder name (NAME_MAX on Linux and macOS)


RESUME_HELP = (
    "continue the run of this command from its checkpoint, or start it when there is none yet (checkpoints "
    "live under $KERAS_SKIM_CACHE/runs, default ~/.cache/keras_skim/runs)"
)
RUN_NAME_HELP = "name of the run's checkpoint folder (default: from the output folder)"


def add_run_arguments(parser, resume_help=RESUME_HELP, run_name_help=RUN_NAME_HELP):
    """`--resume` and `--run-name` (None when not given, so that a family
    can tell them from their defaults)."""
    parser.add_argument("--resume", action="store_true", default=None, help=resume_help)
    parser.add_argument("--run-name", default=None, help=run_name_help)


def check_run_name(name):
    """One-line refusal of a `--run-name` that is not a folder name."""
    if name is not None and (not name or name in (".", "..") or "/" in name or "\\" in name):
        raise CliError(f"--run-name must be a folder name without / or \\ (got {name!r})")
    if name is not None and len(os.fsencode(name)) > MAX_RUN_NAME_BYTES:
        raise CliError(
            f"--run-name must be at most {MAX_RUN_NAME_BYTES} bytes, a folder name (got {len(name)} characters)"
        )


def run_options(args, run_dir=None):
    """The checkpoint's options of a training call: `resume`, `restart`
    (`--force` without `--resume` starts the run over) and `run_dir` (the
    `--run-name` folder under the runs root, else `run_dir`)."""
    from keras_skim.training.run_checkpoint import runs_root

    if args.run_name:
        run_dir = os.path.join(runs_root(), args.run_name)
    return {"resume": bool(args.resume), "restart": bool(args.force and not args.resume), "run_dir": run_dir}
