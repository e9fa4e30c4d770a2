"""Shared helpers of the export and runtime tests: tiny trained models and a
CLI runner."""

import contextlib
import io
import os

import numpy as np

V, E, D, DS, T = 50, 8, 16, 4, 12
TEXTS = ["the movie was good and fun", "bad film awful plot boring", "great acting nice story"]


def write_tokenizer(folder):
    from keras_skim.datasets.tokenizer import Tokenizer

    tok = Tokenizer(max_length=30)
    tok.fit(TEXTS * 3)
    tok.save(os.path.join(folder, "tokenizer.json"))
    return tok


def train_tiny(folder, kind, small_units=DS, vocabulary=V, embedding=E, units=D, fit=True):
    """A model built in plain Keras code (as a user's own would be): builds,
    fits two steps and saves FOLDER/model.keras and a tokenizer.json; no
    train_config.json (folders of `keras-skim train` come from the
    `trained_folder` fixture)."""
    import keras

    from keras_skim import SkimGRUCell, SkimLSTMCell

    rnn = {
        "skim_lstm": lambda: keras.layers.RNN(SkimLSTMCell(units, small_units)),
        "skim_gru": lambda: keras.layers.RNN(SkimGRUCell(units, small_units)),
        "lstm": lambda: keras.layers.LSTM(units),
        "gru": lambda: keras.layers.GRU(units),
    }[kind]()
    inp = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(vocabulary, embedding, mask_zero=True)(inp)
    x = rnn(x)
    x = keras.layers.Dropout(0.1)(x)
    model = keras.Model(inp, keras.layers.Dense(1, activation="sigmoid")(x))
    if fit:
        model.compile("adam", "binary_crossentropy")
        rng = np.random.default_rng(0)
        model.fit(rng.integers(1, vocabulary, (16, T)), rng.integers(0, 2, (16, 1)), batch_size=8, epochs=1, verbose=0)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "model.keras")
    model.save(path)
    write_tokenizer(folder)
    return path, model


def run_cli(argv):
    """(exit code, stdout, stderr) of `keras-skim ARGV`.

    Uses the real `keras_skim.cli.main`; while other subcommand modules are
    still missing, a parser with just this subcommand and the same error
    contract (CliError -> one line on stderr, exit code 2).
    """
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            from keras_skim.cli.main import main

            code = main(argv)
        except ModuleNotFoundError:
            code = _direct(argv)
    return code, out.getvalue(), err.getvalue()


def _direct(argv):
    import argparse
    import importlib
    import sys

    from keras_skim.cli.errors import CliError

    module = importlib.import_module(f"keras_skim.cli.{argv[0]}_command")
    parser = argparse.ArgumentParser(prog=f"keras-skim {argv[0]}")
    module.add_arguments(parser)
    args = parser.parse_args(argv[1:])
    args.command = argv[0]
    try:
        return module.run(args) or 0
    except CliError as error:
        print(f"keras-skim {argv[0]}: error: {error}", file=sys.stderr)
        return 2
