"""What `SkimLSTM` and `SkimGRU` share: a `keras.layers.RNN` that owns the
loop of its one skim cell, as `keras.layers.LSTM` owns its LSTM cell's."""

from typing import Any, ClassVar

import keras
from keras import tree

from keras_skim.models.skim_rnn.skim_cell_base import SkimCellBase, run_skim_loop

# Keys of the cell's config that belong to the layer, not to the cell.
_LAYER_KEYS = ("name", "trainable", "dtype")


class SkimRNNLayer(keras.layers.RNN):
    """Base class of `SkimLSTM` and `SkimGRU`; not used directly.

    Subclasses name their cell class (`cell_class`) and the cell's name
    (`cell_name`); the layer builds that cell from the cell's constructor
    arguments (`cell_class.constructor_arguments`, each also an attribute of
    the layer and a key of its config, with the cell's defaults) and takes
    the `keras.layers.RNN` arguments itself. The layer's `inner_loop` adds
    the skim loss after the loop, without the pre-loop hook that a plain
    `keras.layers.RNN` needs (in training with the TensorFlow backend it
    runs the cell's fused loop, see `run_skim_loop`).
    """

    # set by each subclass (declared here, for the type checker)
    cell_class: ClassVar[type[SkimCellBase]]
    cell_name: ClassVar[str]

    def __init__(
        self,
        units: int,
        small_units: int,
        *,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        **kwargs: Any,
    ) -> None:
        cell_arguments = {name: kwargs.pop(name) for name in self.cell_class.constructor_arguments if name in kwargs}
        cell = self.cell_class(
            units,
            small_units,
            **cell_arguments,
            dtype=kwargs.get("dtype"),
            trainable=kwargs.get("trainable", True),
            name=self.cell_name,
        )
        super().__init__(
            cell,
            return_sequences=return_sequences,
            return_state=return_state,
            go_backwards=go_backwards,
            stateful=stateful,
            unroll=unroll,
            **kwargs,
        )
        self.input_spec = keras.layers.InputSpec(ndim=3)
        # The layer adds the cell's skim loss after its own loop.
        cell._loop_owned = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # Each of the cell's constructor arguments but the settable
        # threshold is a read-only attribute of the layer.
        for name in getattr(getattr(cls, "cell_class", None), "constructor_arguments", ()):
            if name != "threshold":
                setattr(cls, name, cell_property(name))

    # Tells the cell's pre-loop hook to leave this layer's loop alone.
    owns_skim_loop = True

    def inner_loop(self, sequences: Any, initial_state: Any, mask: Any, training: bool | None = False) -> Any:
        if tree.is_nested(mask):
            mask = mask[0]
        # This loop adds the skim loss, whatever the hook found.
        self.cell._rnn_will_account = True
        return run_skim_loop(self, super().inner_loop, sequences, initial_state, mask, training)

    @property
    def threshold(self):
        """The cell's inference threshold (settable, see `SkimLSTMCell`)."""
        return self.cell.threshold

    @threshold.setter
    def threshold(self, value):
        self.cell.threshold = value

    def get_config(self) -> dict[str, Any]:
        cell_config = {k: v for k, v in self.cell.get_config().items() if k not in _LAYER_KEYS}
        base_config = super().get_config()
        del base_config["cell"]
        return {**base_config, **cell_config}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "SkimRNNLayer":
        return cls(**config)


def cell_property(name):
    """A read-only layer attribute that is the cell's attribute `name`."""
    return property(lambda self: getattr(self.cell, name), doc=f"The cell's `{name}`.")
