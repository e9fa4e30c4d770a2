"""Which backend `keras-skim export` writes when none is named (`AUTO`): the
custom op where the model kind has one and this install can run it, since
keras-skim's runtime and the Android demo register every op and it is the
export that is faster than the LSTM export; the builtin graph otherwise
(kinds without an op, model forms the op does not take, such as a stack of
recurrent layers or a Bidirectional one, installs without the op library).
The one line it prints says what the other backend gives and what it costs,
naming the committed benchmark table (nothing is timed at export).
"""

from keras_skim.export.errors import ExportError
from keras_skim.export.family_exporter import family_exporters
from keras_skim.model_kinds import kind_of

AUTO = "auto"

# {model kind: its benchmark table}: where each family measured its custom op
# and its builtin graph against keras-skim's builtin LSTM export of the same
# size (`FamilyExporter.speed_tables`). The figures live only there: the note
# names the table and says the direction, which held at every size measured,
# and the installed package ships no benchmarks to read figures from.
SPEED_TABLES = {kind: table for family in family_exporters() for kind, table in family.speed_tables.items()}


# The builtin graph of stacked and bidirectional exports against the same stack of LSTMs.
STACK_SPEED = "benchmarks/results/stacked_export_speed.md"


def builtin_cost(model_kind):
    """What the builtin graph costs against the custom op: one phrase
    naming the table it was measured in."""
    return f"slower than the custom op at every size measured ({SPEED_TABLES[model_kind]})"


def _custom_op_refusal(model, plan):
    """Why the custom backend cannot export `plan` here (one line), or None."""
    from keras_skim.export.custom_op_backend import CustomOpBackend

    try:
        CustomOpBackend().check(model, plan)
        from keras_skim.runtime.litert_runner import LiteRtError, load

        load()  # the op library and LiteRT's C library, which the parity check runs the export with
    except ExportError as err:
        return str(err).removesuffix("; use --backend builtin")
    except LiteRtError as err:
        return str(err)
    return None


def choose_backend(model, plan):
    """(backend name, note) for `export_model(..., backend=AUTO)`: "custom"
    with the one line on how to get the portable graph and its cost, or
    "builtin" with the reason when the kind has an op that cannot be used
    here (note None for kinds without an op: the builtin graph is their only
    export)."""
    kind = kind_of(plan.model_kind)
    if not kind.custom_op or getattr(plan, "input_kind", None) == "sequence":  # the ops take token ids
        return "builtin", None
    if plan.stacked:
        from keras_skim.export.custom_op_backend import stack_refusal

        return "builtin", f"{stack_refusal(plan)}; its speed against the same stack of LSTMs: {STACK_SPEED}"
    cost = builtin_cost(kind.name)
    refusal = _custom_op_refusal(model, plan)
    if refusal:
        return "builtin", (
            f"the {kind.custom_op} custom op is not available ({refusal}), so this is the portable builtin "
            f"graph, which ran {cost}"
        )
    return "custom", (f"--backend builtin writes the portable graph that any LiteRT interpreter runs; it ran {cost}")
