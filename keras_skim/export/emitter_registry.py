"""Registry of per-cell emitters: how one kind of recurrent cell becomes
TFLite builtin ops.

An emitter module defines a subclass of `CellEmitter` and decorates it with
`@register_emitter("CellClassName", ...)`. To support a new cell kind, write
that module (in the family's folder) and name it as the kind's `emitter` in
the model-kind table (`keras_skim.model_kinds`); the registry loads the
modules the table names.
"""

import importlib

from keras_skim.model_kinds import KINDS

_EMITTERS = {}


def _emitter_modules():
    """The emitter modules of the table's kinds (`ModelKind.emitter`), each once, in table order."""
    return tuple(dict.fromkeys(kind.emitter for kind in KINDS.values() if kind.emitter))


def register_emitter(*cell_class_names):
    """Class decorator: the emitter handles cells of these class names."""

    def decorate(cls):
        for name in cell_class_names:
            _EMITTERS[name] = cls
        return cls

    return decorate


def _load_modules():
    for name in _emitter_modules():
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name != name:  # a missing emitter module is fine, a broken one is not
                raise


def emitter_for(cell):
    """The emitter instance for a Keras cell, or None if no emitter knows it."""
    _load_modules()
    cls = _EMITTERS.get(type(cell).__name__)
    return None if cls is None else cls(cell)


def known_cells():
    _load_modules()
    return sorted(_EMITTERS)


def flop_kind_of(cell):
    """The `keras_skim.analysis.flops` kind of a Keras cell (its emitter's
    `flop_kind`), or None if no emitter knows it."""
    _load_modules()
    cls = _EMITTERS.get(type(cell).__name__)
    return None if cls is None else cls.flop_kind


class CellEmitter:
    """How one recurrent cell runs in the exported graph.

    The graph builder gathers, once per sequence, rows of the tables returned
    by `input_projections` (the embedding and every input projection folded into
    one matrix per use), then loops over the tokens. A skim cell computes
    `pre_step` on every token; its scalar is compared with the threshold's
    logit and only one of `read_step` / `skim_step` runs (a TFLite `IF`).
    A plain cell runs `read_step` on every token. All weights must be created
    as constants inside these methods so that they stay constant inputs of
    FULLY_CONNECTED ops in the subgraph where they are used.

    Attributes set by subclasses:
        model_kind: metadata name (a `keras_skim.model_kinds.KINDS` key).
        flop_kind: cell kind for `keras_skim.analysis.flops` ("lstm", "gru", ...).
        skims: whether the cell has a read/skim gate.
        units, small_units, input_dim, default_threshold.
    """

    model_kind = None
    flop_kind = None
    skims = False

    def __init__(self, cell):
        self.cell = cell
        self.units = int(cell.units)
        self.small_units = 0
        self.default_threshold = None

    def check(self):
        """Raises ExportError for a configuration the emitter cannot run."""

    def input_projections(self):
        """(pre, read): each None or (kernel [input_dim, k], bias [k]), float64.

        The projection of every token is computed before the loop (or folded
        into the embedding table); `pre` rows feed `pre_step`, `read` rows
        feed `read_step`.
        """
        raise NotImplementedError

    def initial_state(self):
        """List of float32 numpy arrays, the loop state at t = 0."""
        raise NotImplementedError

    def pre_step(self, state, pre_row):
        """(gate, carry): gate is a scalar l_read - l_skim; carry goes to skim_step."""
        raise NotImplementedError

    def read_step(self, state, read_row, carry):
        raise NotImplementedError

    def skim_step(self, state, carry):
        raise NotImplementedError

    def output(self, state):
        """The cell's output h [1, units] from the final state."""
        return state[0]


def checked_emitter(cell, layer_name):
    """The checked emitter of `cell`, of the layer the user named
    `layer_name`; ExportError (one line) for a cell a family refuses outside
    its own model, or one no emitter knows."""
    from keras_skim.export.errors import ExportError
    from keras_skim.export.family_exporter import refusal_for

    refusal = refusal_for(cell)
    if refusal is not None:
        raise ExportError(f"layer {layer_name!r}: {refusal}")
    emitter = emitter_for(cell)
    if emitter is None:
        raise ExportError(
            f"unsupported layer {layer_name!r}: no exporter for cell {type(cell).__name__} "
            f"(known: {', '.join(known_cells())})"
        )
    emitter.check()
    return emitter
