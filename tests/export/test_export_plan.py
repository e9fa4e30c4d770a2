"""The exporter works from one plan: `export_model` reads the model into a
`ModelPlan` once and hands it to the backend, the parity check, the
metadata and the FLOP counts; nothing on the export path plans again."""

import json
import os

import pytest

from tests.export.helpers import train_tiny


@pytest.fixture(scope="module")
def skim_model(tmp_path_factory):
    path, _ = train_tiny(str(tmp_path_factory.mktemp("plan_model")), "skim_lstm")
    return path


def _counting(monkeypatch):
    """{"plans", "emitters"}: how often `plan.plan_model` is called and how
    often a cell's emitter is made (once per cell per plan, however a caller
    imported the planner)."""
    from keras_skim.export import emitter_registry, plan

    calls = {"plans": 0, "emitters": 0}
    plan_model, emitter_for = plan.plan_model, emitter_registry.emitter_for

    def counted_plan(model):
        calls["plans"] += 1
        return plan_model(model)

    def counted_emitter(cell):
        calls["emitters"] += 1
        return emitter_for(cell)

    monkeypatch.setattr(plan, "plan_model", counted_plan)
    monkeypatch.setattr(emitter_registry, "emitter_for", counted_emitter)
    return calls


@pytest.mark.parametrize(
    "backend, quantize",
    [("custom", None), ("custom", "int8"), ("auto", None), ("builtin", None)],
)
def test_an_export_plans_the_model_once(skim_model, tmp_path, monkeypatch, op_cache, backend, quantize):
    from keras_skim.export.exporter import export_model

    calls = _counting(monkeypatch)
    result = export_model(skim_model, str(tmp_path / "out"), backend=backend, quantize=quantize)
    assert result.parity.ok and result.parity.decisions > 0
    assert calls == {"plans": 1, "emitters": 1}, calls
    meta = json.load(open(os.path.join(result.output_dir, "metadata.json")))
    assert meta["flops"]["skim_flops_per_token"] < meta["flops"]["read_flops_per_token"]


def test_the_custom_op_functions_take_a_plan_instead_of_planning(skim_model, monkeypatch, op_cache):
    """`custom_op_flatbuffer` and `read_model` plan only when not given a plan."""
    import keras

    from keras_skim.export import custom_op_backend
    from keras_skim.export.plan import plan_model

    model = keras.models.load_model(skim_model)
    plan = plan_model(model)
    calls = _counting(monkeypatch)
    given = custom_op_backend.custom_op_flatbuffer(model, threshold=0.5, plan=plan)
    assert calls["plans"] == 0 and calls["emitters"] == 0
    assert given == custom_op_backend.custom_op_flatbuffer(model, threshold=0.5)
    assert calls["plans"] == 1
