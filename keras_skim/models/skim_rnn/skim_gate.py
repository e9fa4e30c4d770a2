"""What the engines and the text classifier ask of a model's skim cells: the
table's `ModelKind.gate` of the Skim-RNN kinds (`keras_skim.model_kinds.skim_gate()`).

The CLI's `evaluate` and `show`, the exporter's parity references and the
text classifier's trainer reach the skim cells only through this module:
finding them, their threshold, the read decision of one step, the skim
statistics and the per-layer report of a stacked or bidirectional model.
"""

from keras_skim.models.skim_rnn.skim_cell_base import STAT_PENDING, STAT_SKIMS, STAT_TOKENS, SkimCellBase
from keras_skim.models.skim_rnn.skim_controls import set_threshold, skim_cells, thresholds_set_to  # noqa: F401
from keras_skim.models.skim_rnn.skim_layers import (  # noqa: F401
    is_stack,
    layer_rows,
    skim_directions,
    stack_flop_r,
)
from keras_skim.models.skim_rnn.skim_statistics import direction_decisions, skim_predictions  # noqa: F401

# The heading of `keras-skim show --html`'s page.
REPORT_TITLE = "Skim-RNN: read and skimmed words"


def gated_cells(model):
    """Every cell with a skim gate inside `model`, in layer order (`skim_cells`)."""
    return skim_cells(model)


def is_gated(cell):
    """Whether a Keras cell has a skim gate."""
    return isinstance(cell, SkimCellBase)


def read_decision(new_states):
    """1.0 if the step that returned `new_states` (a skim cell's, batch 0) read its token, else 0.0."""
    return 1.0 - new_states[-1][0, STAT_PENDING]


def token_counts(final_states):
    """(real tokens, skimmed tokens), each `(batch,)`, of one call of a skim
    layer built with `return_state=True`, from its final states (the
    bookkeeping state is the last): masked steps count in neither."""
    stats = final_states[-1]
    return stats[:, STAT_TOKENS], stats[:, STAT_SKIMS]


def flop_kind(cell):
    """The `keras_skim.analysis.flops` kind of a skim cell's big and small
    cells: its emitter's `flop_kind` (an LSTM's when no emitter knows it)."""
    from keras_skim.export.emitter_registry import flop_kind_of

    return flop_kind_of(cell) or "lstm"


def training_callbacks(temperature_rate):
    """The callbacks a skim model trains with: the Gumbel temperature
    schedule, decaying at `temperature_rate` per step."""
    from keras_skim.models.skim_rnn.gumbel_temperature_schedule import GumbelTemperatureSchedule

    return [GumbelTemperatureSchedule(rate=temperature_rate)]
