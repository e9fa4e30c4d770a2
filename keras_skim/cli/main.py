"""`keras-skim`: train, evaluate, show, export, bench, demo and presets.

Each subcommand lives in `keras_skim/cli/<name>_command.py` with
`add_arguments(parser)` and `run(args) -> int`. Those modules import
TensorFlow only inside `run`, so `keras-skim bench` stays TensorFlow-free.
"""

import argparse
import importlib
import os
import sys

from keras_skim.cli.errors import CliError
from keras_skim.version import __version__

COMMANDS = {
    "train": "Train a skim model, a jump model or a baseline (--cell) on a text dataset.",
    "evaluate": "Accuracy, skim rate (or read/skip/jump fractions) and Flop-R of a trained model.",
    "show": "Show which words a model read and which it skimmed, skipped or jumped.",
    "export": "Export a trained model to TFLite with its vocabulary and metadata.",
    "bench": "Benchmark an exported TFLite model with LiteRT, the way a phone runs it.",
    "demo": "The main job: train a skim model and an LSTM baseline and compare them.",
    "presets": "List the trained models (presets) that MODEL may name in evaluate, show and export.",
}


def _command_module(name):
    return importlib.import_module(f"keras_skim.cli.{name}_command")


class OneLineParser(argparse.ArgumentParser):
    """Argument errors in one line (the CLI's promise for bad input), not
    argparse's usage block."""

    def error(self, message):
        message = " ".join(message.split())
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser():
    parser = OneLineParser(
        prog="keras-skim",
        description="Neural speed reading layers for Keras 3 and their TFLite tools.",
    )
    parser.add_argument("--version", action="version", version=f"keras-skim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True
    for name, help_text in COMMANDS.items():
        module = _command_module(name)
        command_parser = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(command_parser)
        command_parser.set_defaults(_module=module)
    return parser


def _printable_stdout():
    """Output naming a file whose name is not UTF-8 (a surrogate escape in
    argv) prints it with a backslash escape instead of failing."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(errors="backslashreplace")
        except (ValueError, OSError):  # a closed or detached stream
            pass


def main(argv=None):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    _printable_stdout()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help, --version, or a one-line argument error
        return done.code
    from keras_skim.cli.native_stderr import native_stderr_to_log
    from keras_skim.contracts import ContractError
    from keras_skim.install_extras import check_command

    hint = check_command(args.command)
    if hint is not None:  # a runtime-only install: say what to install, in one line
        print(f"keras-skim {args.command}: error: {hint}", file=sys.stderr)
        return 2

    from keras_skim.runtime import run_deadline

    run_deadline.arm_for_command_line()  # an export whose loops never end: one line, exit 2
    with native_stderr_to_log():
        try:
            return args._module.run(args) or 0
        except (CliError, ContractError) as err:
            message = " ".join(str(err).split("\n"))
            print(f"keras-skim {args.command}: error: {message}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print(f"keras-skim {args.command}: interrupted", file=sys.stderr)
            return 130


if __name__ == "__main__":
    sys.exit(main())
