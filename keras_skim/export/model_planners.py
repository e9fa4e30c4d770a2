"""Whole-model planners: a model family that is more than one cell in a
text classifier (a model class with its own input layers and agents) plans
its models itself, and so does the text classifier's float-sequence form.

Each family's exporter (`family_exporter`, named by `ModelFamily.exporter` in
`keras_skim.model_kinds`) lists its planners (`planners()`) and the cells it
exports only inside its own model (`cell_refusals`: class name -> the
one-line reason given when one turns up in a plain `keras.layers.RNN`);
`model_plan.plan_model` asks `planner_for` first and names no family. The
per-cell registry is `emitter_registry`.
"""

from keras_skim.export.family_exporter import family_exporters


def planner_for(model):
    """The planner of the family (or form) `model` belongs to, or None (a plain text classifier)."""
    for exporter in family_exporters():
        for recognise, plan in exporter.planners():
            if recognise(model):
                return plan
    return None


def refusal_for(cell):
    """Why `cell` cannot be exported in a plain recurrent layer, or None."""
    name = type(cell).__name__
    return next((e.cell_refusals[name] for e in family_exporters() if name in e.cell_refusals), None)
