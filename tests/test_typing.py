"""The public API is typed: mypy (configured in pyproject.toml) passes on the
public modules, and finds the mistakes of a caller who misuses them; every
public function of the TensorFlow-free API has annotated parameters and
return; `py.typed` ships (PEP 561)."""

import importlib
import importlib.util
import inspect
import os
import subprocess
import sys
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The modules whose names users import: the package, the export entry, the
# runtime, the datasets' loaders and tokenizer, presets, load_model, flop_report.
PUBLIC_MODULES = [
    "keras_skim/__init__.py",
    "keras_skim/export/__init__.py",
    "keras_skim/runtime/__init__.py",
    "keras_skim/runtime/runner.py",
    "keras_skim/runtime/classification.py",
    "keras_skim/datasets/__init__.py",
    "keras_skim/datasets/errors.py",
    "keras_skim/datasets/tokenizer.py",
    "keras_skim/datasets/registry.py",
    "keras_skim/datasets/imdb.py",
    "keras_skim/datasets/rotten_tomatoes.py",
    "keras_skim/datasets/mnist_digits.py",
    "keras_skim/datasets/glove.py",
    "keras_skim/presets/__init__.py",
    "keras_skim/model_io.py",
    "keras_skim/analysis/flops.py",
    "keras_skim/models/skim_rnn/skim_controls.py",
    "keras_skim/models/skim_rnn/skim_statistics.py",
    "keras_skim/models/structural_jump/structural_jump_statistics.py",
    "keras_skim/models/structural_jump/structural_jump_training.py",
    "keras_skim/models/structural_jump/structural_jump_flops.py",
    "keras_skim/models/scornn/scornn_optimizer.py",
    # the Keras cells, layers, model, metric, callbacks and optimizers (and their bases)
    "keras_skim/models/skim_rnn/skim_cell_base.py",
    "keras_skim/models/skim_rnn/skim_rnn_layer.py",
    "keras_skim/models/skim_rnn/skim_lstm_cell.py",
    "keras_skim/models/skim_rnn/skim_gru_cell.py",
    "keras_skim/models/skim_rnn/skim_lstm.py",
    "keras_skim/models/skim_rnn/skim_gru.py",
    "keras_skim/models/skim_rnn/skim_rate.py",
    "keras_skim/models/skim_rnn/gumbel_temperature_schedule.py",
    "keras_skim/models/scornn/scornn_cell.py",
    "keras_skim/models/structural_jump/structural_jump_lstm_cell.py",
    "keras_skim/models/structural_jump/structural_jump_lstm.py",
    "keras_skim/models/structural_jump/text_structure.py",
    "keras_skim/models/structural_jump/loss_weight_schedule.py",
    "keras_skim/models/structural_jump/entropy_weight_decay.py",
    "keras_skim/models/structural_jump/critic_warmup.py",
    "keras_skim/models/structural_jump/per_tensor_clip_rmsprop.py",
]
# The public functions and classes of keras_skim (its lazy names): the Keras classes' constructors
# and public methods are annotated too, Keras' own objects typed `Any` (Keras ships no hints).
TYPED_LAZY_NAMES = [
    "load_model",
    "flop_report",
    "from_preset",
    "list_presets",
    "tokenizer_from_preset",
    "set_threshold",
    "skim_cells",
    "skim_statistics",
    "reading_positions",
    "structural_jump_statistics",
    "train_structural_jump",
    "structural_jump_flop_report",
    "scornn_optimizer",
    "SkimLSTMCell",
    "SkimGRUCell",
    "SkimLSTM",
    "SkimGRU",
    "ScoRNNCell",
    "StructuralJumpLSTMCell",
    "StructuralJumpLSTM",
    "TextStructure",
    "SkimRate",
    "GumbelTemperatureSchedule",
    "EntropyWeightDecay",
    "CriticWarmup",
    "PerTensorClipRMSprop",
    "ScoRNNOptimizer",
]

MISUSE = """
from keras_skim.datasets import Tokenizer, load_rotten_tomatoes
from keras_skim.runtime import SkimRunner

runner = SkimRunner("export", num_threads="two")
label: int = runner.classify("a text").label
Tokenizer().encode_one(3)
texts, labels = load_rotten_tomatoes(split="test", limit="10")
"""


def _mypy(*paths, cache):
    # mypy is in the test extra: a missing one fails here, it does not skip
    assert importlib.util.find_spec("mypy") is not None, 'mypy is not installed: pip install -e ".[test]"'
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", os.path.join(ROOT, "pyproject.toml"), "--cache-dir", cache]
        + list(paths),
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        # the checkout's keras_skim, not an installed copy
        env=dict(os.environ, MYPYPATH=ROOT),
    )


def test_mypy_passes_on_the_public_modules_and_fails_on_a_misuse(tmp_path):
    done = _mypy(*PUBLIC_MODULES, cache=str(tmp_path / "cache"))
    assert done.returncode == 0 and "Success: no issues found" in done.stdout, done.stdout[-3000:] + done.stderr
    misuse = tmp_path / "misuse.py"
    misuse.write_text(MISUSE)
    done = _mypy(str(misuse), cache=str(tmp_path / "cache"))
    errors = [line for line in done.stdout.splitlines() if ": error: " in line]
    assert done.returncode == 1, done.stdout + done.stderr
    # the four mistakes, by line: an int as a str, a str where an int is declared, an int as a text, a str limit
    assert [int(line.split(":")[1]) for line in errors] == [5, 6, 7, 8], done.stdout
    assert "[arg-type]" in errors[0] and "[assignment]" in errors[1] and "[arg-type]" in errors[2]


def _unannotated(function):
    """The parameters (and "return") of `function` that have no annotation."""
    signature = inspect.signature(function)
    missing = [
        name
        for name, parameter in signature.parameters.items()
        if name not in ("self", "cls") and parameter.annotation is inspect.Parameter.empty
    ]
    if signature.return_annotation is inspect.Signature.empty and function.__name__ != "__init__":
        missing.append("return")
    return missing


def _class_methods(cls):
    """`cls`'s constructor and public methods, with those it inherits from keras_skim's own
    bases (a Keras class's inherited methods are Keras' business)."""
    for owner in reversed(cls.__mro__):
        if not owner.__module__.startswith("keras_skim"):
            continue
        for attribute, member in vars(owner).items():
            function = getattr(member, "__func__", member)
            if inspect.isfunction(function) and (attribute == "__init__" or not attribute.startswith("_")):
                yield attribute, function


def _public_callables(module_name, names):
    module = importlib.import_module(module_name)
    for name in names:
        value = getattr(module, name)
        if inspect.isclass(value):
            for attribute, function in dict(_class_methods(value)).items():
                yield f"{module_name}.{name}.{attribute}", function
        elif inspect.isfunction(value):
            yield f"{module_name}.{name}", value


def test_the_public_functions_are_annotated():
    import keras_skim.datasets
    import keras_skim.export
    import keras_skim.presets
    import keras_skim.runtime

    found = {}
    for module in (keras_skim.runtime, keras_skim.datasets, keras_skim.presets, keras_skim.export):
        found.update(_public_callables(module.__name__, module.__all__))
    found.update(_public_callables("keras_skim", TYPED_LAZY_NAMES))
    assert {"keras_skim.runtime.SkimRunner.classify", "keras_skim.export.export", "keras_skim.load_model"} <= set(found)
    # the Keras classes' own methods and those of their keras_skim bases, not Keras' own
    assert {
        "keras_skim.SkimLSTM.__init__",
        "keras_skim.SkimLSTM.get_config",
        "keras_skim.SkimLSTMCell.call",
        "keras_skim.ScoRNNCell.build",
        "keras_skim.ScoRNNOptimizer.from_config",
        "keras_skim.CriticWarmup.on_train_batch_begin",
    } <= set(found)
    assert "keras_skim.SkimLSTM.add_weight" not in found
    assert {name: missing for name, function in found.items() if (missing := _unannotated(function))} == {}
    # and the check sees a missing annotation, in a function and in a Keras class's method
    assert _unannotated(lambda text, limit=None: text) == ["text", "limit", "return"]

    import keras

    class Untyped(keras.layers.Layer):
        def __init__(self, units: int, **kwargs) -> None:
            super().__init__(**kwargs)

        def call(self, inputs, training=None):
            return inputs

    Untyped.__module__ = "keras_skim.untyped"
    methods = dict(_class_methods(Untyped))
    assert set(methods) == {"__init__", "call"}
    assert (_unannotated(methods["__init__"]), _unannotated(methods["call"])) == (
        ["kwargs"],
        ["inputs", "training", "return"],
    )


def test_py_typed_ships():
    assert os.path.isfile(os.path.join(ROOT, "keras_skim", "py.typed"))
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        package_data = tomllib.load(f)["tool"]["setuptools"]["package-data"]
    assert "py.typed" in package_data["keras_skim"]
