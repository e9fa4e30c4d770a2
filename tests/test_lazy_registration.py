"""The lazy public names and the layers' registration, each in a fresh
interpreter that has not imported Keras: a lazy name (whose module's own
`import keras` sets off the registration), and a layer module imported by
its path before Keras (its registration waits for `load_model`)."""

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "saved_models" / "structural_jump_lstm.keras"


def _fresh(script):
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT), TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES=""),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_a_lazy_name_first_and_a_layer_module_first():
    lazy = _fresh(
        "import sys, keras_skim\nassert 'keras' not in sys.modules\n"
        "cell = keras_skim.SkimLSTMCell(4, 2)\nprint(type(cell).__name__, keras_skim.SkimGRU.__name__)"
    )
    assert lazy.split() == ["SkimLSTMCell", "SkimGRU"]
    direct = _fresh(
        "from keras_skim.models.skim_rnn.skim_lstm_cell import SkimLSTMCell\nimport keras\n"
        f"model = keras.saving.load_model({str(FIXTURE)!r}, compile=False)\nprint(type(model).__name__)"
    )
    assert direct.split() == ["StructuralJumpLSTM"]
