"""Argument helpers shared by the CLI commands (TensorFlow-free)."""
import argparse
import os

from keras_skim.cli.errors import CliError


def _integer_at_least(minimum, wording):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {wording}, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected {wording}, got {text!r}")
        return value

    return parse


positive_int = _integer_at_least(1, "a positive integer")
non_negative_int = _integer_at_least(0, "an integer >= 0")


def non_negative_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return value


def model_paths(path):
    """Resolves MODEL (a model folder or a .keras/.h5 file) to
    (model file, tokenizer file or None, train_config file or None)."""
    if os.path.isdir(path):
        for name in ("model.keras", "model.h5"):
            if os.path.exists(os.path.join(path, name)):
                folder, model_file = path, os.path.join(path, name)
                break
        else:
            raise CliError(f"{path}: folder holds no model.keras or model.h5")
    else:
        if not os.path.exists(path):
            raise CliError(f"{path}: no such model file or folder")
        folder, model_file = os.path.dirname(path) or ".", path
    tokenizer = os.path.join(folder, "tokenizer.json")
    config = os.path.join(folder, "train_config.json")
    return (
        model_file,
        tokenizer if os.path.exists(tokenizer) else None,
        config if os.path.exists(config) else None,
    )


def load_model_or_fail(model_file):
    from keras_skim.model_io import ModelLoadError, load_model

    try:
        return load_model(model_file)
    except ModelLoadError as err:
        raise CliError(str(err)) from None


def load_tokenizer_or_fail(path, model_file):
    from keras_skim.datasets import Tokenizer

    if path is None:
        raise CliError(
            f"{model_file}: no tokenizer.json next to the model (pass --tokenizer PATH)"
        )
    try:
        return Tokenizer.load(path)
    except ValueError as err:
        raise CliError(str(err)) from None
