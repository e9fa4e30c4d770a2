"""Argument helpers shared by the CLI commands (TensorFlow-free)."""

import argparse

from keras_skim.cli.errors import CliError
from keras_skim.contract_fields import MAX_SEQUENCE_LENGTH, MAX_VOCABULARY_SIZE
from keras_skim.export.export_options import MAX_PARITY_SAMPLES
from keras_skim.model_kinds import CLI_KINDS, THRESHOLD_HELP  # noqa: F401 (the commands' --threshold help)


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


def integer_in(minimum, maximum, wording=None):
    """An argparse type: an integer from `minimum` to `maximum` (`wording`:
    how the message names it)."""
    wording = wording or f"an integer from {minimum} to {maximum}"

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {wording}, got {text!r}") from None
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(f"expected {wording}, got {text!r}")
        return value

    return parse


positive_int = _integer_at_least(1, "a positive integer")
# Checked here, before TensorFlow loads: NumPy and Keras seeds are 32-bit;
# the vocabulary needs <pad>, <unk> and a word; lengths and vocabulary
# sizes within what `train_config.json` and `metadata.json` may record.
seed_value = integer_in(0, (1 << 32) - 1)
sequence_length = integer_in(1, MAX_SEQUENCE_LENGTH)
vocabulary_tokens = integer_in(3, MAX_VOCABULARY_SIZE)
non_negative_int = _integer_at_least(0, "an integer >= 0")
# Upper bounds of the options that size memory, checked before any work
# (TensorFlow's ResourceExhaustedError or NumPy's MemoryError would come
# only after minutes). An LSTM of d units holds 4d(d + e) weights: d = 4096
# is about 1 GB with Adam's slots (the papers use d <= 200); every parity
# sample is one Keras and one LiteRT run per threshold.
MAX_STATE_UNITS = 4096
MAX_BATCH_SIZE = 1 << 16
state_units = integer_in(1, MAX_STATE_UNITS, f"a positive integer of at most {MAX_STATE_UNITS}")
batch_size = integer_in(1, MAX_BATCH_SIZE, f"a positive integer of at most {MAX_BATCH_SIZE}")
parity_samples = integer_in(1, MAX_PARITY_SAMPLES, f"a positive integer of at most {MAX_PARITY_SAMPLES}")


def output_path(text):
    """An argparse type for `-o`/`--html`: a path, never empty (an empty
    `-o ""` must not fall back to the default place)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected a path to write, got {text!r}")
    return text


def non_negative_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}") from None
    if not value >= 0 or value == float("inf"):  # also refuses NaN
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0, got {text!r}")
    return value


def unit_interval(text):
    """A fraction in (0, 1], e.g. `--read-budget 0.25`."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {text!r}") from None
    if not 0.0 < value <= 1.0:  # also refuses NaN
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {text!r}")
    return value


def dropout_rate(text):
    """A dropout rate in [0, 1), e.g. `--dropout 0.1`."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1), got {text!r}") from None
    if not 0.0 <= value < 1.0:  # also refuses NaN
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1), got {text!r}")
    return value


def threshold_list(text):
    """`--thresholds 0,0.3,0.5`: finite numbers >= 0 (NaN refused)."""
    values = []
    for item in text.split(","):
        if item.strip():
            values.append(non_negative_float(item.strip()))
    if not values:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers >= 0, got {text!r}")
    return values


def model_folder(path):
    """Resolves MODEL (a model folder, a .keras/.h5 file, or a preset: a name
    `keras-skim presets` lists, file://, hf:// or kaggle://) to its
    `contracts.ModelFolder` (model file, tokenizer, train_config)."""
    from keras_skim import contracts
    from keras_skim.presets import PresetError, local_preset_path

    try:
        return contracts.resolve_model(local_preset_path(path))
    except (contracts.ContractError, PresetError) as err:
        raise CliError(str(err)) from None


def train_config_of(folder):
    """The model folder's `contracts.TrainConfig`, or None without one."""
    from keras_skim import contracts

    if folder.train_config is None:
        return None
    try:
        return contracts.read_train_config(folder.train_config)
    except contracts.ContractError as err:
        raise CliError(str(err)) from None


def model_record(path):
    """(folder, train config, recorded data) of MODEL: its
    `contracts.ModelFolder`, its `contracts.TrainConfig` (None without one)
    and the data that config records (`datasets.registry.recorded_data`)."""
    from keras_skim.datasets.registry import recorded_data

    folder = model_folder(path)
    config = train_config_of(folder)
    return folder, config, recorded_data(config.as_dict() if config else None)


def load_model_or_fail(model_file):
    from keras_skim.model_io import ModelLoadError, load_model

    try:
        return load_model(model_file)
    except ModelLoadError as err:
        raise CliError(str(err)) from None


def sequence_input_shape(model):
    """`(T, F)` of a model on float sequences (`Input((T, F))` into its
    recurrent layer; T None for any length), else None (a model of texts)."""
    inputs = getattr(model, "inputs", None) or []
    if len(inputs) == 1 and len(inputs[0].shape) == 3 and "float" in str(inputs[0].dtype):
        return tuple(inputs[0].shape[1:])
    return None


def refuse_sequence_model(model, model_file, command):
    """A model on float sequences has no text to read: `command` refuses it
    in one line."""
    shape = sequence_input_shape(model)
    if shape is not None:
        features = shape[-1]
        raise CliError(
            f"{model_file}: the model takes float sequences [T, {features}], not text, and keras-skim {command} "
            "reads texts; export it (keras-skim export) and run it with "
            "keras_skim.runtime.SkimRunner(folder).run_sequence"
        )


def load_text_model(folder, command):
    """The model of `folder` (`model_folder`), refused in one line when it
    reads no text (`refuse_sequence_model`): what `command` ("evaluate",
    "show") runs."""
    model = load_model_or_fail(folder.model)
    refuse_sequence_model(model, folder.model, command)
    return model


def text_tokenizer(model, tokenizer_arg, folder):
    """The tokenizer for `model` (`load_tokenizer_or_fail`), refused in one
    line when its ids go past the model's embedding."""
    tokenizer = load_tokenizer_or_fail(tokenizer_arg, folder)
    check_tokenizer_fits(model, tokenizer, folder.model)
    return tokenizer


def model_family(model):
    """The `keras_skim.model_kinds.ModelFamily` of a loaded model, told by
    the registered name of its class (a functional model: a text classifier)."""
    import keras

    from keras_skim.model_kinds import family_of_model_class

    return family_of_model_class(keras.saving.get_registered_name(type(model)))


def family_command(model, name):
    """The family's own `name` ("evaluate", "show") for a loaded model, or
    None where the command's own (a text classifier's) serves."""
    from keras_skim.model_kinds import load

    commands = model_family(model).commands
    return getattr(load(commands), name, None) if commands else None


# The `--cell` values whose models take no threshold (their agents decide what is read).
NO_THRESHOLD_CELLS = ", ".join(cell for cell, kind in CLI_KINDS.items() if kind.jumps)


def add_threshold_argument(parser, default_note=""):
    """`--threshold` of a command that reads texts with a trained model
    (`evaluate`, `show`): None keeps the model's own; `default_note` starts
    the parenthesis of its help."""
    parser.add_argument(
        "--threshold",
        type=non_negative_float,
        default=None,
        help=THRESHOLD_HELP + f" ({default_note}not for {NO_THRESHOLD_CELLS} models)",
    )


def load_tokenizer_or_fail(tokenizer_arg, folder):
    """The tokenizer of `--tokenizer PATH` (a tokenizer.json or its folder),
    else the one next to the model."""
    from keras_skim import contracts
    from keras_skim.datasets import Tokenizer

    if tokenizer_arg is not None:
        try:
            path = contracts.tokenizer_file(tokenizer_arg)
        except contracts.ContractError as err:
            raise CliError(f"--tokenizer {err}") from None
    elif folder.tokenizer is not None:
        path = folder.tokenizer
    else:
        raise CliError(f"{folder.model}: no {contracts.TOKENIZER_FILE} next to the model (pass --tokenizer PATH)")
    try:
        return Tokenizer.load(path)
    except ValueError as err:
        raise CliError(str(err)) from None


def model_vocabulary_size(model):
    """The number of ids a loaded model's embedding takes (None when it has
    no Embedding layer the CLI can see)."""
    import keras

    size = getattr(model, "vocabulary_size", None)
    if isinstance(size, int):
        return size
    for layer in model.layers:
        if isinstance(layer, keras.layers.Embedding):
            return int(layer.input_dim)
    return None


def check_tokenizer_fits(model, tokenizer, model_file):
    """Refuses (one line) a tokenizer whose ids go past the model's
    embedding: Keras would fail deep inside a gather otherwise."""
    size = model_vocabulary_size(model)
    if size is not None and tokenizer.vocabulary_size > size:
        raise CliError(
            f"{model_file}: the tokenizer has {tokenizer.vocabulary_size} tokens but the model's embedding "
            f"takes {size}; pass the tokenizer it was trained with (--tokenizer)"
        )
