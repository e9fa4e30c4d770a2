"""The per-family exporter seam: what `keras_skim.export` asks a model family
(keras-hub's one exporter per model behind one table is the idea).

Each `ModelFamily.exporter` of the model-kind table (`keras_skim.model_kinds`)
names the family's export module, whose `EXPORTER` is a `FamilyExporter`.
The planner dispatch (`plan.planner_for`), both backends, the metadata, the
parity check and the default backend's note ask `exporter_of(plan.model_kind)`
(or every family: `family_exporters`) and name no family. The base class answers
for a family of cells in a text classifier (the cells the emitter registry
knows, the generic graphs, the skim cells' ops); a family that is more than
a cell (its own `keras.Model`, its own op) overrides what differs, in its
own files.
"""

from keras_skim.model_kinds import FAMILIES, family_of, load


class FamilyExporter:
    """A model family's export pieces; the defaults are a text classifier's.

    Attributes:
        cell_refusals: {cell class name: why it is exported only inside the
            family's own model} (one phrase each).
        speed_tables: {model kind: the benchmark table (a path under
            benchmarks/results/) where its custom op and builtin graph were
            timed against the LSTM export}: named in the default backend's
            note (`backend_choice`).
        quantizes: the backends whose export `--quantize int8` applies to
            (empty: none; the others refuse it).
        threshold_note: the note when `--threshold` is given for a kind
            without a skim gate; None: the text classifier's.
        writes_custom_op: the family writes its op's flatbuffer itself
            (`custom_op_flatbuffer`); False: the skim cells' ops.
    """

    cell_refusals = {}
    speed_tables = {}
    quantizes = ("builtin", "custom")
    threshold_note = None
    writes_custom_op = False

    def planners(self):
        """((recognise(model) -> bool, plan(model) -> ModelPlan), ...): the
        models the family plans itself (`plan.planner_for`)."""
        return ()

    def builtin_graph(self, plan):
        """The `build_module(plan, fold)` of the family's builtin graph, or
        None (the generic graphs of `builtin_backend`)."""
        return None

    def custom_op_flatbuffer(self, plan, *, length, fold, quantize=None):
        """The .tflite bytes of the family's own op (`writes_custom_op`),
        float32 or with int8 weights (`quantize="int8"`)."""
        raise NotImplementedError

    def int8_op_reference(self, plan, settings):
        """The parity reference of an int8 export of the family's own op
        (`writes_custom_op`; `settings`: its file's description): ids [1, T]
        -> (outputs, per-token codes [T]), the op's arithmetic on its
        dequantized weights."""
        raise NotImplementedError

    def flops_section(self, plan):
        """The metadata's FLOP counts of the family's models, or None (a cell's)."""
        return None

    def add_metadata_entries(self, plan, metadata):
        """What the family adds to or changes in an export's `ExportMetadata`."""

    def keras_reference(self, model, plan):
        """The parity check's Keras reference of the family's models
        (ids [1, T] -> (outputs, per-token codes [T])), or None (a cell's)."""
        return None


def exporter_of(model_kind):
    """The `FamilyExporter` of a model kind's family."""
    return load(family_of(model_kind).exporter).EXPORTER


def family_exporters():
    """Every family's `FamilyExporter`, in the order of `model_kinds.FAMILIES`."""
    return [load(family.exporter).EXPORTER for family in FAMILIES.values()]


def refusal_for(cell):
    """Why `cell` cannot be exported in a plain recurrent layer (a family's
    `cell_refusals`), or None."""
    name = type(cell).__name__
    return next((e.cell_refusals[name] for e in family_exporters() if name in e.cell_refusals), None)
