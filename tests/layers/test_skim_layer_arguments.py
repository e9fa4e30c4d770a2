"""SkimLSTM / SkimGRU take their cell's constructor arguments through one
list (`SkimCellBase.constructor_arguments`): each is an attribute of the
cell and of the layer and a key of both configs, and the list matches the
cells' signatures."""

import inspect

import keras
import pytest

from keras_skim import SkimGRU, SkimGRUCell, SkimLSTM, SkimLSTMCell
from keras_skim.models.skim_rnn.skim_cell_base import SkimCellBase

# A value other than the default for every argument but units/small_units.
NON_DEFAULTS = {
    "gamma": 0.05,
    "threshold": 0.3,
    "activation": "relu",
    "recurrent_activation": "hard_sigmoid",
    "use_bias": False,
    "kernel_initializer": "he_normal",
    "recurrent_initializer": "glorot_normal",
    "bias_initializer": "ones",
    "gate_initializer": "lecun_normal",
    "kernel_regularizer": "l2",
    "recurrent_regularizer": "l1",
    "bias_regularizer": "l2",
    "kernel_constraint": "non_neg",
    "recurrent_constraint": "unit_norm",
    "bias_constraint": "non_neg",
    "dropout": 0.2,
    "recurrent_dropout": 0.1,
    "initial_temperature": 2.0,
    "seed": 7,
    "unit_forget_bias": False,
}


def _parameters(function):
    return [name for name in inspect.signature(function).parameters if name not in ("self", "kwargs")]


def test_the_list_is_the_cells_signature():
    assert tuple(_parameters(SkimCellBase.__init__)) == SkimCellBase.constructor_arguments
    assert SkimGRUCell.constructor_arguments == SkimCellBase.constructor_arguments
    own = [name for name in _parameters(SkimLSTMCell.__init__) if name not in ("units", "small_units")]
    assert SkimLSTMCell.constructor_arguments == SkimCellBase.constructor_arguments + tuple(own)
    assert set(NON_DEFAULTS) | {"units", "small_units"} == set(SkimLSTMCell.constructor_arguments)


@pytest.mark.parametrize("layer_class", [SkimLSTM, SkimGRU])
def test_every_argument_reaches_the_cell_and_the_config(layer_class):
    names = layer_class.cell_class.constructor_arguments
    arguments = {name: NON_DEFAULTS[name] for name in names if name in NON_DEFAULTS}
    layer = layer_class(12, 3, return_sequences=True, name="skim", **arguments)
    config = layer.get_config()
    for name in names:
        assert getattr(layer, name) == getattr(layer.cell, name), name
        assert name in config, name
    assert (layer.units, layer.small_units, layer.gamma, layer.threshold, layer.seed) == (12, 3, 0.05, 0.3, 7)
    assert config["kernel_regularizer"] == keras.regularizers.serialize(keras.regularizers.get("l2"))
    assert layer.return_sequences and layer.cell.name == layer_class.cell_name
    again = layer_class.from_config(config)
    assert again.get_config() == config


def test_an_argument_of_the_other_cell_is_refused():
    with pytest.raises(ValueError, match="unit_forget_bias"):
        SkimGRU(8, 2, unit_forget_bias=False)


def test_arguments_after_small_units_are_keywords():
    # A third positional argument would have been gamma; it is refused
    # rather than taken for return_sequences.
    with pytest.raises(TypeError):
        SkimLSTM(8, 2, 0.01)
