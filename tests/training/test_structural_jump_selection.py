"""Phase 2's selection rules (`structural_jump_selection`) on made-up histories."""

import math

import pytest

from keras_skim.models.structural_jump.structural_jump_schedule import StructuralJumpSchedule
from keras_skim.models.structural_jump.structural_jump_selection import (
    accuracy_floor,
    describe_selection,
    floor_words,
    replay_selection,
    speed_read_key,
    speed_reading_record,
)


def _record(step, accuracy, read, reward):
    return {"step": step, "accuracy": accuracy, "read_fraction": read, "reward": reward}


# Shaped like the whole Rotten Tomatoes run with w = 0.15: the reward peaks at
# a point that jumps over most words, accurate points read more.
OVER_JUMPING = [
    _record(1500, 0.698, 0.228, 0.768),
    _record(1900, 0.749, 0.589, 0.726),
    _record(2000, 0.760, 0.706, 0.712),
    _record(2300, 0.679, 0.174, 0.770),
]
# Shaped like the 2k-document slice with w = 0.15: points within the floor
# at several reading levels.
SLICE = [
    _record(1500, 0.676, 0.450, 0.681),
    _record(1900, 0.744, 0.945, 0.655),
    _record(2400, 0.712, 0.483, 0.697),
    _record(2500, 0.730, 0.466, 0.691),
    _record(3000, 0.700, 0.700, 0.642),
]


def test_the_floor_is_the_full_read_accuracy_less_standard_errors():
    assert accuracy_floor(0.706, 500, 1.0) == pytest.approx(0.706 - math.sqrt(0.706 * 0.294 / 500))
    assert accuracy_floor(0.706, 500, 0.0) == 0.706
    # More validation documents: a narrower floor.
    assert accuracy_floor(0.78, 1275, 1.0) > accuracy_floor(0.78, 500, 1.0)
    with pytest.raises(ValueError, match="validation_examples"):
        accuracy_floor(0.7, 0, 1.0)


def test_the_floor_keeps_the_least_read_point_above_it():
    floor = accuracy_floor(0.706, 500, 1.0)  # 0.6856
    assert replay_selection(SLICE, floor=floor)["step"] == 2500
    # Without the floor the reward wins: step 2400.
    assert replay_selection(SLICE)["step"] == 2400


def test_below_the_floor_everywhere_the_most_accurate_point_is_kept():
    floor = accuracy_floor(0.782, 1275, 1.0)  # 0.7704: no point reaches it
    assert replay_selection(OVER_JUMPING, floor=floor)["step"] == 2000
    assert replay_selection(OVER_JUMPING)["step"] == 2300


def test_a_point_above_the_floor_beats_every_point_below_it():
    floor = 0.70
    above = speed_read_key(_record(1, 0.70, 0.99, 0.1), floor=floor)
    below = speed_read_key(_record(2, 0.69, 0.10, 0.9), floor=floor)
    assert above > below
    # Equal reading: the more accurate one.
    assert speed_read_key(_record(3, 0.75, 0.5, 0.0), floor=floor) > speed_read_key(
        _record(4, 0.72, 0.5, 0.0), floor=floor
    )


def test_selection_start_and_ties():
    assert replay_selection(SLICE, floor=0.6856, start_step=2600)["step"] == 3000
    assert replay_selection(SLICE, start_step=9999) is None
    twins = [_record(100, 0.7, 0.5, 0.6), _record(200, 0.7, 0.5, 0.6)]
    assert replay_selection(twins, floor=0.6)["step"] == 100  # a later point must be better


def test_a_read_budget_wins_over_the_floor():
    budget = replay_selection(SLICE, floor=0.6856, read_budget=0.6)
    assert budget["step"] == 2500  # the most accurate within 60% read
    assert replay_selection(SLICE, floor=0.6856, read_budget=0.47)["step"] == 2500
    assert replay_selection(SLICE, read_budget=0.3)["step"] == 2400  # none fits: the best reward


def test_the_reward_and_budget_keys_are_those_of_older_checkpoints():
    record = _record(1, 0.7, 0.5, 0.65)
    assert speed_read_key(record) == (1, 0.65)
    assert speed_read_key(record, read_budget=0.6) == (1, 0.7)
    assert speed_read_key(record, read_budget=0.4) == (0, 0.65)


def test_the_default_preset_keeps_within_one_point_and_the_authors_preset_has_no_floor():
    default = StructuralJumpSchedule.preset("default")
    authors = StructuralJumpSchedule.preset("authors")
    assert default.accuracy_floor_points == 0.01 and default.accuracy_floor_standard_errors is None
    assert default.full_reader_fallback is True
    assert authors.accuracy_floor_standard_errors is None and authors.accuracy_floor_points is None
    # Left out of the settings when unset, so the authors' runs resume from their checkpoints.
    for name in ("accuracy_floor_standard_errors", "accuracy_floor_points", "full_reader_fallback"):
        assert name not in authors.to_dict()
    assert default.to_dict()["accuracy_floor_points"] == 0.01 and default.to_dict()["full_reader_fallback"] is True
    # The earlier floor in standard errors is still a schedule (older runs resume), but one floor at a time.
    older = StructuralJumpSchedule.preset("default", accuracy_floor_points=None, accuracy_floor_standard_errors=1.0)
    assert older.to_dict()["accuracy_floor_standard_errors"] == 1.0 and "accuracy_floor_points" not in older.to_dict()
    with pytest.raises(ValueError, match="two floors; give one"):
        StructuralJumpSchedule.preset("default", accuracy_floor_standard_errors=1.0)
    for bad in (-1.0, "1", True):
        with pytest.raises(ValueError, match="accuracy_floor_standard_errors"):
            StructuralJumpSchedule.preset("authors", accuracy_floor_standard_errors=bad)
        with pytest.raises(ValueError, match="accuracy_floor_points"):
            StructuralJumpSchedule.preset("authors", accuracy_floor_points=bad)
    with pytest.raises(ValueError, match="full_reader_fallback needs an accuracy floor"):
        StructuralJumpSchedule.preset("authors", full_reader_fallback=True)
    with pytest.raises(ValueError, match="full_reader_fallback must be True or False"):
        StructuralJumpSchedule.preset("default", full_reader_fallback=1)


def test_the_default_preset_runs_the_reading_cost_control_from_the_paper_s_0_1():
    default = StructuralJumpSchedule.preset("default")
    authors = StructuralJumpSchedule.preset("authors")
    assert (default.rolling_weight, default.rolling_weight_factor, default.rolling_weight_levels) == (0.1, 1.5, 4)
    assert default.to_dict()["rolling_weight_factor"] == 1.5
    # The authors' preset keeps the model's own (the paper's 0.1) and its settings as its checkpoints have them.
    assert authors.rolling_weight is None and "rolling_weight" not in authors.to_dict()
    assert "rolling_weight_factor" not in authors.to_dict()
    assert StructuralJumpSchedule.preset("authors", rolling_weight=0.05).to_dict()["rolling_weight"] == 0.05
    for bad in (-0.1, "0.1", True, float("nan")):
        with pytest.raises(ValueError, match="rolling_weight"):
            StructuralJumpSchedule.preset("default", rolling_weight=bad)


def test_the_schedule_gives_the_model_its_rolling_weight_and_refuses_a_second_one():
    from keras_skim.models.structural_jump.structural_jump_config import merged_model_options as _model_options
    from keras_skim.models.structural_jump.structural_jump_training import train_structural_jump

    default = StructuralJumpSchedule.preset("default")
    assert _model_options({"advantage": "code"}, default) == {"advantage": "code", "rolling_weight": 0.1}
    assert _model_options({"rolling_weight": 0.1}, default) == {"rolling_weight": 0.1}
    authors = StructuralJumpSchedule.preset("authors")
    assert _model_options({"rolling_weight": 0.05}, authors) == {"rolling_weight": 0.05}
    assert _model_options(None, None) == {}
    # Refused before any data is read (the data set name does not exist).
    with pytest.raises(ValueError, match="rolling_weight is given twice: 0.15 in model_options and 0.1"):
        train_structural_jump(None, dataset="no-such-data", model_options={"rolling_weight": 0.15}, schedule="default")


def test_the_kept_model_is_told_against_the_full_reader_in_one_line():
    kept = speed_reading_record(0.706, {"accuracy": 0.702, "read_fraction": 0.584}, "speed-read", "the least read")
    assert kept["kept"] == "speed-read" and kept["why"] == "the least read"
    assert kept["validation"] == {"accuracy": 0.702, "read_fraction": 0.584}
    assert kept["full_reader"] == {"accuracy": 0.706, "read_fraction": 1.0}
    assert kept["line"] == (
        "speed reading kept: validation accuracy 0.7020 at 58.4% read; "
        "full reader 0.7060 at 100% read (-0.4 points; the least read)"
    )
    full = speed_reading_record(0.706, {"accuracy": 0.706, "read_fraction": 1.0}, "full-reader", "none reached it")
    assert full["line"].startswith("full reader kept: validation accuracy 0.7060 at 100.0% read")
    assert "\n" not in full["line"] and full["line"].endswith("(+0.0 points; none reached it)")
    alone = speed_reading_record(None, {"accuracy": 0.7, "read_fraction": 0.5}, "speed-read", "best reward")
    assert alone["full_reader"] is None and alone["line"].endswith("at 50.0% read (best reward)")


def test_the_rule_is_described_in_words():
    assert describe_selection() == "best validation reward"
    assert "read fraction <= 0.6" in describe_selection(1.0, 0.6)
    assert describe_selection(1.0).startswith("least read with validation accuracy >= the full-read best less 1 ")
    assert describe_selection(floor_points=0.01).endswith("the full-read best less 1 point")
    assert floor_words(0.02) == "2 points" and floor_words(standard_errors=1.0) == "1 standard error(s)"
