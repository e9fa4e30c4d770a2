"""Registry of whole-model planners: model families that are more than one
cell in a text classifier (a model class with its own input layers and
agents, such as Structural-Jump-LSTM) plan themselves.

A family's export module decorates its planner with
`@register_model_planner(recognise, cells={...})` and is listed in
`_PLANNER_MODULES`; `model_plan.plan_model` asks `planner_for` first and
names no family. `cells` maps cell class names that export only inside the
family's model to the one-line reason given when one turns up in a plain
`keras.layers.RNN`. The per-cell registry is `emitter_registry`.
"""

import importlib

_PLANNERS = []  # [(recognise(model) -> bool, plan(model) -> ModelPlan)]
_CELL_REFUSALS = {}  # cell class name -> one-line reason
_PLANNER_MODULES = ("keras_skim.export.structural_jump_emitter", "keras_skim.export.sequence_input")


def register_model_planner(recognise, cells=None):
    """Function decorator: `plan(model)` plans the models `recognise(model)` accepts."""

    def decorate(plan):
        if all(existing is not plan for _, existing in _PLANNERS):
            _PLANNERS.append((recognise, plan))
        _CELL_REFUSALS.update(cells or {})
        return plan

    return decorate


def _load_modules():
    for name in _PLANNER_MODULES:
        importlib.import_module(name)


def planner_for(model):
    """The planner of the family `model` belongs to, or None (a plain text classifier)."""
    _load_modules()
    return next((plan for recognise, plan in _PLANNERS if recognise(model)), None)


def refusal_for(cell):
    """Why `cell` cannot be exported in a plain recurrent layer, or None."""
    _load_modules()
    return _CELL_REFUSALS.get(type(cell).__name__)
