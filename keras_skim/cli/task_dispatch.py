"""`--task` and `--model` of `keras-skim train` and `evaluate`: the tasks beyond text classification.

Without `--task` the commands are what they were (text classification, `--cell`). With it, the command
hands its parsed options to the commands module that the task table (`keras_skim.model_kinds.TASKS`)
names for the task and `--model`, so a new task or model is a row there plus its family's module.
"""

from keras_skim.cli.errors import CliError
from keras_skim.model_kinds import TASKS, load


def add_task_arguments(parser):
    """`--task` (default: text classification) and `--model` (default: the task's first model)."""
    tasks = "; ".join(f"{name}: {task.description}" for name, task in TASKS.items())
    parser.add_argument("--task", choices=list(TASKS), default=None, help=f"default: text classification; {tasks}")
    models = "; ".join(f"--task {name}: {', '.join(m for m, _ in task.models)}" for name, task in TASKS.items())
    parser.add_argument(
        "--model", dest="task_model", default=None, metavar="NAME", help=f"the model of --task ({models})"
    )


def run_task(command, args):
    """The exit status of `command` ("train" or "evaluate") for `--task`, or None without `--task`.

    Raises:
        CliError: `--model` without `--task`, or a model the task does not have.
    """
    if args.task is None:
        if args.task_model is not None:
            raise CliError("--model needs --task")
        return None
    models = dict(TASKS[args.task].models)
    name = args.task_model or TASKS[args.task].models[0][0]
    if name not in models:
        raise CliError(f"--task {args.task} has no model {name!r}; expected one of {', '.join(models)}")
    return getattr(load(models[name]), command)(args)
