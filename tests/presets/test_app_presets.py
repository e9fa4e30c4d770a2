"""The release pipeline builds the app's models from presets (`export/build_release.py assets --from-presets`,
issue 31): each preset exported with the backend and int8 weights the app bundles for its kind, nothing trained;
a missing preset or a training option is one line, exit 2."""

import os

import pytest

from tests.presets.conftest import NAME


def _pipeline(capsys, *argv):
    from export.build_release import main

    code = main(["assets", *argv])
    return code, capsys.readouterr().err


def test_each_kind_is_exported_as_the_committed_assets_are():
    from export.release_assets import DEMO_SETTINGS, _export_plan

    int8 = ["--quantize", "int8"]
    assert _export_plan("skim_lstm", DEMO_SETTINGS) == [("custom", "skim_lstm_custom", int8)]
    assert _export_plan("lstm", DEMO_SETTINGS) == [("builtin", "lstm_builtin", int8)]
    assert _export_plan("structural_jump_lstm", DEMO_SETTINGS) == [("custom", "structural_jump_lstm_custom", int8)]
    both = dict(DEMO_SETTINGS, jump_backends=("custom", "builtin"), quantize=None)
    assert _export_plan("structural_jump_lstm", both) == [
        ("custom", "structural_jump_lstm_custom", []),
        ("builtin", "structural_jump_lstm_builtin", []),
    ]


def test_a_preset_is_exported_from_its_folder_without_training(preset_root, tmp_path, monkeypatch):
    from export import release_assets

    commands = []
    monkeypatch.setattr(release_assets, "_keras_skim", lambda args, log: commands.append(args))
    lines = []
    folders = release_assets.preset_exports(str(tmp_path / "work"), [NAME], log=lines.append)
    out = str(tmp_path / "work" / "exports" / "skim_lstm_custom")
    assert folders == [out]
    preset = str(preset_root / NAME)
    assert commands == [["export", preset, "-o", out, "--backend", "custom", "--force", "--quantize", "int8"]]
    assert lines[0].startswith(f"preset {NAME}: {preset} (test accuracy 0.")


def test_a_missing_preset_is_one_line_saying_how_to_make_it(tmp_path, capsys):
    code, err = _pipeline(capsys, "--from-presets", "no_such_preset", "--work", str(tmp_path / "work"))
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("build_release.py assets: error: no_such_preset: not a preset folder")
    assert "python benchmarks/train_presets.py NAME, then benchmarks/make_preset.py" in err
    assert not os.path.exists(tmp_path / "work")


@pytest.mark.parametrize("extra", [["--epochs", "3"], ["--limit", "100"], ["--reuse-trained"]])
def test_training_options_are_refused_with_presets(extra, tmp_path, capsys):
    code, err = _pipeline(capsys, "--from-presets", *extra, "--work", str(tmp_path / "work"))
    assert code == 2 and err.count("\n") == 1
    assert f"{extra[0]}: not with --from-presets (the presets are trained already)" in err


def test_presets_and_exports_are_one_source_or_the_other(tmp_path, capsys):
    with pytest.raises(SystemExit):
        _pipeline(capsys, "--from-presets", "--from-exports", str(tmp_path))
    assert "not allowed with argument" in capsys.readouterr().err
