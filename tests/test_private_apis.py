"""Every private Keras API keras-skim uses is where keras_skim/private_apis.py
says; when a Keras release moves one, this fails naming it, the Keras
version and what needs it. No other module reaches into private modules."""

import os
import re

import keras
import pytest

from keras_skim import private_apis

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "keras_skim")
PRIVATE_IMPORT = re.compile(r"^\s*(from|import)\s+(keras\.src|tensorflow\.(python|compiler|lite\.python|core))\b", re.M)
# The layers' keras.src imports, all in one module (keras_skim/keras_internals.py), listed in
# private_apis.LAYER_PRIVATE_APIS.
LAYER_FILES = {"keras_internals.py"}


@pytest.mark.parametrize("name", [*private_apis.PRIVATE_APIS, *private_apis.LAYER_PRIVATE_APIS])
def test_private_api_is_where_keras_skim_expects_it(name):
    problems = private_apis.check_private_apis([name])
    assert not problems, problems[0]


def test_a_moved_api_is_one_clear_line():
    with pytest.raises(private_apis.PrivateApiMoved) as info:
        private_apis.resolve("keras.src.ops.numpy.NotEqualRenamed")
    message = str(info.value)
    assert message.startswith(f"Keras {keras.__version__} moved or removed the private API keras.src.ops.numpy.")
    assert "\n" not in message
    known = private_apis.check_private_apis(["keras.src.ops.numpy.NotEqual"])
    assert known == []
    assert "keras_skim/model_io.py" in private_apis._moved_message("keras.src.ops.numpy.NotEqual")


def test_no_other_module_imports_private_modules():
    offenders = []
    for folder, _, files in os.walk(PACKAGE):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, PACKAGE).replace(os.sep, "/")
            with open(path, encoding="utf-8") as f:
                found = PRIVATE_IMPORT.findall(f.read())
            if found and relative not in LAYER_FILES | {"private_apis.py"}:
                offenders.append(relative)
    assert offenders == []


def test_not_equal_resolves_for_h5_loading():
    operation = private_apis.not_equal_operation()
    assert operation.__name__ == "NotEqual"
    assert issubclass(operation, keras.Operation)
