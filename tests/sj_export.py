"""The Structural-Jump-LSTM export for the tests of what consumes it (bench, the app's assets
and golden files), which another branch builds: `export_structural_jump` exports a trained
folder, or skips the test with a clear message while `keras_skim/export/` does not know the
model kind yet. Once it does, any failure is a failure."""
import glob
import os

import pytest

JUMP_MODEL_KIND = "structural_jump_lstm"


def exporter_takes_jump_models():
    """Whether `keras_skim/export/` names the jump model's kind (its metadata's model_kind)."""
    import keras_skim.export

    for path in glob.glob(os.path.join(os.path.dirname(keras_skim.export.__file__), "*.py")):
        with open(path, encoding="utf-8") as f:
            if f'"{JUMP_MODEL_KIND}"' in f.read():
                return True
    return False


def require_jump_export():
    """Skips the test (before any slow training) while the exporter does not take the model."""
    if not exporter_takes_jump_models():
        pytest.skip("waits on the Structural-Jump-LSTM TFLite export: keras_skim/export/ does not know the "
                    f"model kind {JUMP_MODEL_KIND!r} in this checkout yet")


def export_structural_jump(folder, output_dir, **kwargs):
    """`export_model(folder, output_dir, **kwargs)` of a Structural-Jump-LSTM folder, or
    `pytest.skip` while the exporter does not take one; returns the ExportResult."""
    require_jump_export()
    from keras_skim.export.exporter import export_model

    return export_model(folder, output_dir, **kwargs)
