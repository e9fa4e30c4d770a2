"""`--task` and `--model` of `keras-skim train`, and the dispatch of `train`
and `evaluate` to a task's own commands (`keras_skim.model_kinds.TASKS`).

Without `--task` the commands do what they did before (text classification
with `--cell`); a task's rows live in the table, so a new task adds no
branch here. A folder written by a task's `train` holds `task.json`
(`TASK_RECORD`), by which `evaluate` finds the task again.
"""

import json
import pathlib

from keras_skim.cli.errors import CliError
from keras_skim.model_kinds import TASKS, load

TASK_RECORD = "task.json"


def task_models():
    """{`--model` value: task name} over every task, in table order."""
    return {model: name for name, task in TASKS.items() for model in task.models}


def add_task_arguments(parser):
    """`--task` and `--model` (both None when not given)."""
    parser.add_argument(
        "--task",
        choices=list(TASKS),
        default=None,
        help="train for a task other than text classification: "
        + "; ".join(f"{name}: {task.description}" for name, task in TASKS.items()),
    )
    parser.add_argument(
        "--model",
        dest="task_model",
        choices=list(task_models()),
        default=None,
        help="the --task's model: "
        + "; ".join(f"{' or '.join(task.models)} for --task {name}" for name, task in TASKS.items())
        + " (default: the first)",
    )


def task_commands(args):
    """The commands module of `args.task`, or None without `--task`
    (`--model` without `--task` is refused in one line)."""
    task = getattr(args, "task", None)
    model = getattr(args, "task_model", None)
    if task is None:
        if model is not None:
            raise CliError(f"--model {model} applies only with --task {task_models()[model]}")
        return None
    if model is not None and model not in TASKS[task].models:
        raise CliError(f"--model {model} is not a model of --task {task} (one of {', '.join(TASKS[task].models)})")
    return load(TASKS[task].commands_of(model))


def recorded_task(path):
    """The commands module of the task that wrote the model folder `path`
    (its `TASK_RECORD`), or None for any other model."""
    record = pathlib.Path(path) / TASK_RECORD
    if not record.is_file():
        return None
    try:
        written = json.loads(record.read_text(encoding="utf-8"))
        name, model = written["task"], written.get("model")
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        raise CliError(f"{record}: unreadable task record ({err})") from None
    if name not in TASKS:
        raise CliError(f"{record}: unknown task {name!r}; expected one of {', '.join(TASKS)}")
    return load(TASKS[name].commands_of(model))


def write_task_record(folder, record):
    """Writes `record` (a dict with at least "task") as the model folder's
    `TASK_RECORD`, by which `evaluate` and `show` find the task again."""
    path = pathlib.Path(folder) / TASK_RECORD
    path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


# Options whose flag is not their destination's name.
_FLAGS = {"early_stopping": "--no-early-stopping"}


def refuse_unused_options(args, task, used, unused):
    """Refuses in one line the `keras-skim train` options given that `--task task`
    would ignore, as the train command refuses another family's options.

    Args:
        args: the parsed train options.
        task: the `--task` value, for the message.
        used: the option names the task reads (its own defaults).
        unused: {option name: its value when not given} of the shared options
            the task ignores; every family's own options (`OPTION_GROUPS`)
            outside `used` are refused too.
    """
    from keras_skim.model_kinds import FAMILIES

    unused = dict(unused)
    for family in FAMILIES.values():
        for defaults in load(family.commands).OPTION_GROUPS.values():
            unused.update({name: None for name in defaults if name not in used})
    given = [name for name, default in unused.items() if getattr(args, name, default) != default]
    if given:
        flags = ", ".join(_FLAGS.get(name, "--" + name.replace("_", "-")) for name in given)
        raise CliError(f"{flags} {'does' if len(given) == 1 else 'do'} not apply to --task {task}")


def task_settings(args, defaults):
    """{name: the option's value, else the task's default} over `defaults`."""
    given = {name: getattr(args, name, None) for name in defaults}
    return {name: defaults[name] if value is None else value for name, value in given.items()}
