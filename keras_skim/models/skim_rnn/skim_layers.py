"""The recurrent layers of a stacked or bidirectional Keras model, per layer
and direction, for `show` and `evaluate`: which skim cell is which (layer
index, name, direction, as the export's `metadata.layers` names them) and
Flop-R over all of them (the Skim-RNN paper's Figure 3 reports the skim
rate per layer and direction)."""

import dataclasses


@dataclasses.dataclass
class Direction:
    """One direction of one top-level recurrent layer."""

    layer: int  # index among the recurrent layers, input first
    name: str  # the layer's name (the Bidirectional wrapper's)
    direction: str  # "forward" or "backward"
    cell: object
    input_dim: int

    @property
    def label(self):
        return f"layer {self.layer} ({self.name}) {self.direction}"


def _input_dim(layer):
    tensor = layer.input[0] if isinstance(layer.input, (list, tuple)) else layer.input
    return int(tensor.shape[-1])


def directions(model):
    """Every direction of the model's top-level `RNN` / `Bidirectional` layers, in
    layer order, forward before backward (the order `skim_statistics` gives
    its skim cells in)."""
    import keras

    found = []
    index = 0
    for layer in model.layers:
        if isinstance(layer, keras.layers.Bidirectional):
            rnns = [("forward", layer.forward_layer), ("backward", layer.backward_layer)]
        elif isinstance(layer, keras.layers.RNN):
            rnns = [("forward", layer)]
        else:
            continue
        for direction, rnn in rnns:
            found.append(Direction(index, layer.name, direction, rnn.cell, _input_dim(layer)))
        index += 1
    return found


def is_stack(model):
    """More than one recurrent layer, or a Bidirectional one."""
    return len(directions(model)) > 1


def skim_directions(model):
    """The directions whose cell skims, in `skim_statistics`' order."""
    from keras_skim.models.skim_rnn.skim_cell_base import SkimCellBase

    return [d for d in directions(model) if isinstance(d.cell, SkimCellBase)]


def stack_flop_r(model, skim_rates):
    """Flop-R of the whole stack: the FLOPs per token of the same stack of
    plain cells over the expected FLOPs of this one, every layer and
    direction counted (`skim_rates`: one per skim direction, in
    `skim_directions` order; a plain cell reads every token), from the
    model's FLOP report (`keras_skim.analysis.flops.plan_flop_report` over
    its export plan, which lists the directions in the same order)."""
    from keras_skim.analysis.flops import plan_flop_report
    from keras_skim.export.plan import plan_model

    return plan_flop_report(plan_model(model), skim_rates)["flop_r"]


def layer_rows(model, stats):
    """[{"layer", "name", "direction", "skim_rate", "skimmed", "tokens"}] of a
    stack's skim directions from `skim_statistics(...)`'s `layers`."""
    return [
        {
            "layer": d.layer,
            "name": d.name,
            "direction": d.direction,
            "skim_rate": entry["skim_rate"],
            "skimmed": entry["skimmed"],
            "tokens": entry["tokens"],
        }
        for d, entry in zip(skim_directions(model), stats["layers"])
    ]
