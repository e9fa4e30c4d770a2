"""keras-skim: Keras 3 recurrent layers for neural speed reading.

The Keras objects are loaded lazily so that the TFLite runtime path
(`keras_skim.runtime`, `keras-skim bench`) never imports TensorFlow, the way
a phone runs the model. If Keras is already imported when this package is
imported, the layers are registered at once, so that
`keras.saving.load_model` finds them.
"""

import functools
import importlib
import importlib.abc
import importlib.util
import sys
from typing import Any

from keras_skim.version import __version__

# public name -> module that defines it
_LAZY = {
    "SkimLSTMCell": "keras_skim.models.skim_rnn.skim_lstm_cell",
    "SkimGRUCell": "keras_skim.models.skim_rnn.skim_gru_cell",
    "SkimLSTM": "keras_skim.models.skim_rnn.skim_lstm",
    "SkimGRU": "keras_skim.models.skim_rnn.skim_gru",
    "ScoRNNCell": "keras_skim.models.scornn.scornn_cell",
    "StructuralJumpLSTMCell": "keras_skim.models.structural_jump.structural_jump_lstm_cell",
    "TextStructure": "keras_skim.models.structural_jump.text_structure",
    "structural_jump_statistics": "keras_skim.models.structural_jump.structural_jump_statistics",
    "reading_positions": "keras_skim.models.structural_jump.structural_jump_statistics",
    "StructuralJumpLSTM": "keras_skim.models.structural_jump.structural_jump_lstm",
    "EntropyWeightDecay": "keras_skim.models.structural_jump.entropy_weight_decay",
    "CriticWarmup": "keras_skim.models.structural_jump.critic_warmup",
    "PerTensorClipRMSprop": "keras_skim.models.structural_jump.per_tensor_clip_rmsprop",
    "train_structural_jump": "keras_skim.models.structural_jump.structural_jump_training",
    "structural_jump_flop_report": "keras_skim.models.structural_jump.structural_jump_flops",
    "GumbelTemperatureSchedule": "keras_skim.models.skim_rnn.gumbel_temperature_schedule",
    "set_threshold": "keras_skim.models.skim_rnn.skim_controls",
    "skim_cells": "keras_skim.models.skim_rnn.skim_controls",
    "skim_statistics": "keras_skim.models.skim_rnn.skim_statistics",
    "scornn_optimizer": "keras_skim.models.scornn.scornn_optimizer",
    "ScoRNNOptimizer": "keras_skim.models.scornn.scornn_optimizer",
    "SkimRate": "keras_skim.models.skim_rnn.skim_rate",
    "flop_report": "keras_skim.analysis.flops",
    "load_model": "keras_skim.model_io",
    "from_preset": "keras_skim.presets",
    "list_presets": "keras_skim.presets",
    "tokenizer_from_preset": "keras_skim.presets",
}
# Lazy names that need no Keras: finding them must not import it.
_KERAS_FREE = {"list_presets", "tokenizer_from_preset"}

_LAYER_MODULES = (
    "keras_skim.models.skim_rnn.skim_lstm_cell",
    "keras_skim.models.skim_rnn.skim_gru_cell",
    "keras_skim.models.skim_rnn.skim_lstm",
    "keras_skim.models.skim_rnn.skim_gru",
    "keras_skim.models.scornn.scornn_cell",
    "keras_skim.models.structural_jump.structural_jump_lstm_cell",
    "keras_skim.models.structural_jump.text_structure",
    # A keras.Model subclass: loading a saved one needs its class registered.
    "keras_skim.models.structural_jump.structural_jump_lstm",
)

# `keras_skim.export(model_or_path, output_dir, ...)`: the export subpackage,
# whose module is callable (keras_skim/export/__init__.py); imported on first
# use like the names above, and TensorFlow-free until it is called.
_SUBPACKAGES = ("export", "runtime", "datasets", "presets")

__all__ = ["__version__", "export", *_LAZY]


def _table_layer_modules():
    """The modules of the cells, layers and models the model-kind table names
    (a new family's are registered without a line here)."""
    from keras_skim.model_kinds import FAMILIES, KINDS, TASKS

    paths = [path for kind in KINDS.values() for path in (kind.cell_class, kind.layer) if path]
    paths += [family.model_module for family in FAMILIES.values() if family.model_module]
    paths += [path for task in TASKS.values() for path in task.model_classes]
    return [path.partition(":")[0] for path in paths]


_registering = False  # register_layers is running (its imports may import Keras)


def register_layers() -> None:
    """Imports every layer module so that Keras can deserialize them."""
    global _registering
    if _registering:
        return
    _registering = True
    try:
        for name in dict.fromkeys([*_LAYER_MODULES, *_table_layer_modules()]):
            try:
                importlib.import_module(name)
            except ModuleNotFoundError as err:
                # A layer module that is not written yet must not break the rest.
                if err.name != name:
                    raise
    finally:
        _registering = False


def _importing_keras_skim() -> bool:
    """Whether a keras_skim module is half executed: its own `import keras`
    is what imported Keras, so its classes are not defined yet."""
    return any(
        name.startswith("keras_skim.") and getattr(getattr(module, "__spec__", None), "_initializing", False)
        for name, module in list(sys.modules.items())
    )


def _register_before_loading(keras_module: Any) -> None:
    """Makes `keras.saving.load_model` (and `keras.models.load_model`)
    register the layers first: for Keras imported by a layer module (`from
    keras_skim.models... import X` before `import keras`), whose
    half-defined module the layers cannot import yet."""
    original = keras_module.saving.load_model

    @functools.wraps(original)
    def load_model(*args: Any, **kwargs: Any) -> Any:
        register_layers()
        return original(*args, **kwargs)

    keras_module.saving.load_model = load_model
    if getattr(keras_module.models, "load_model", None) is original:
        keras_module.models.load_model = load_model


def __getattr__(name: str) -> Any:
    if name in _SUBPACKAGES:
        return importlib.import_module(f"keras_skim.{name}")
    if name in _LAZY:
        if name not in _KERAS_FREE:
            register_layers()
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'keras_skim' has no attribute {name!r}")


class _RegisterAfterKerasImport(importlib.abc.MetaPathFinder):
    """Registers the layers right after Keras is imported, when keras_skim came first.

    `import keras_skim, keras; keras.saving.load_model("m.keras")` must find the
    layers, yet importing keras_skim must not import Keras (the runtime runs
    without it). Keras has no hook for plug-ins' serializables, so this finder
    wraps the loader of the top-level `keras` module once and then leaves
    `sys.meta_path`.
    """

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "keras":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        execute = spec.loader.exec_module

        def exec_module(module):
            execute(module)
            if _registering:  # the registration that imported Keras goes on
                return
            if _importing_keras_skim():
                _register_before_loading(module)
            else:
                register_layers()

        spec.loader.exec_module = exec_module
        return spec


if "keras" in sys.modules:
    register_layers()
else:
    sys.meta_path.insert(0, _RegisterAfterKerasImport())
