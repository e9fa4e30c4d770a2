"""What a command needs beyond keras-skim's base install, and the one line
that says how to get it.

The base install (`pip install keras-skim`) is the TensorFlow-free runtime:
the tokenizer, the LiteRT runner, `keras-skim bench` and the custom-op
library. Training, evaluation, `show` and export need Keras and TensorFlow:
the `train` extra brings Keras, and TensorFlow comes from the user's own
install (tensorflow, tensorflow-cpu or tensorflow[and-cuda]) or from the
`tensorflow` extra. Standard library only: this runs before anything heavy.
"""

import importlib.util

# The keras-skim commands that build or load Keras models.
TRAINING_COMMANDS = ("train", "evaluate", "show", "export", "demo")
# module -> distribution that provides it, for the commands above
TRAINING_MODULES = {"keras": "keras", "tensorflow": "tensorflow", "h5py": "h5py"}
TENSORFLOW_RANGE = ">=2.20,<2.22"


def missing_modules(modules=TRAINING_MODULES):
    """The modules of `modules` that cannot be imported here (not imported to find out)."""
    return [name for name in modules if importlib.util.find_spec(name) is None]


def training_install_hint(command, missing):
    """One line: what `command` needs and the pip command that installs it."""
    tensorflow_too = "tensorflow" in missing
    extras = "train,tensorflow" if tensorflow_too else "train"
    line = f'needs {", ".join(missing)}, which this runtime-only install lacks: pip install "keras-skim[{extras}]"'
    if tensorflow_too:
        line += f' (with your own tensorflow or tensorflow-cpu {TENSORFLOW_RANGE}: pip install "keras-skim[train]")'
    return line


def check_command(command):
    """None, or the one-line hint when `command` needs modules this install lacks."""
    if command not in TRAINING_COMMANDS:
        return None
    missing = missing_modules()
    return training_install_hint(command, missing) if missing else None
