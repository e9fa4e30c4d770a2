"""The code is formatted and linted by ruff with the repository's ruff.toml
(`ruff format --check`, `ruff check`): the check CI runs."""

import ast
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("command", [["check", "--output-format", "concise"], ["format", "--check"]])
def test_ruff(command):
    done = subprocess.run([sys.executable, "-m", "ruff", *command, "."], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, f"ruff {' '.join(command)} .:\n{done.stdout[-4000:]}{done.stderr[-2000:]}"


def test_the_configuration_is_the_repository_one():
    """A ruff.toml in the root, with a line length, so the checks above do not fall back to
    ruff's defaults."""
    with open(os.path.join(ROOT, "ruff.toml"), encoding="utf-8") as f:
        config = f.read()
    assert "line-length = 120" in config and "[lint]" in config


# Functions of keras_skim longer or wider than the limits that are allowed for now: none
# (issue 29 split the last ones); an entry needs a reason, and the dict only shrinks.
MAX_LINES = 80
MAX_PARAMETERS = 10
OVERSIZED = {}


# The Keras classes a layer or model derives from (a class of the package deriving from one is one too).
KERAS_BASES = {"Layer", "Model", "RNN", "Wrapper", "DropoutRNNCell"}


def _parameters(node):
    arguments = node.args
    names = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
    names += [a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return [name for name in names if name not in ("self", "cls")]


PACKAGE = os.path.join(ROOT, "keras_skim")


def measured_functions(package=PACKAGE):
    """(qualified name "path:Class.function", lines, parameters, Keras constructor) of every
    function; a Keras constructor is the `__init__` of a Keras Layer or Model class."""
    trees = {}
    for folder, _, files in os.walk(package):
        for file in sorted(f for f in files if f.endswith(".py")):
            path = os.path.join(folder, file)
            with open(path, encoding="utf-8") as f:
                trees[os.path.relpath(path, package).replace(os.sep, "/")] = ast.parse(f.read(), path)
    bases = {
        node.name: [ast.unparse(base).split(".")[-1] for base in node.bases]
        for tree in trees.values()
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    }

    def is_keras(name, seen=()):
        return name in KERAS_BASES or any(
            base not in seen and is_keras(base, (*seen, name)) for base in bases.get(name, [])
        )

    found = []
    for relative, tree in trees.items():
        _walk(tree, [], relative, found, is_keras)
    return found


def _walk(node, parents, relative, found, is_keras):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            scope = ".".join(p.name for p in parents)
            name = f"{relative}:{scope + '.' if scope else ''}{child.name}"
            lines = child.end_lineno - child.lineno + 1
            owner = parents[-1] if parents else None
            keras = child.name == "__init__" and isinstance(owner, ast.ClassDef) and is_keras(owner.name)
            found.append((name, lines, len(_parameters(child)), keras))
        if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            _walk(child, [*parents, child], relative, found, is_keras)


def test_no_function_is_longer_than_80_lines_or_takes_more_than_10_parameters():
    """Short functions with few parameters (self/cls not counted). A Keras Layer or Model
    constructor is exempt: Keras layers take their config as keyword arguments (what
    `get_config` returns and `from_config` passes back, one per saved setting), and checking
    and storing each is its body; the allowance above only shrinks."""
    over = {
        name: f"{lines} lines, {parameters} parameters"
        for name, lines, parameters, keras_constructor in measured_functions()
        if not keras_constructor and (lines > MAX_LINES or parameters > MAX_PARAMETERS)
    }
    assert {name: why for name, why in over.items() if name not in OVERSIZED} == {}
    assert sorted(set(OVERSIZED) - set(over)) == [], "within the limits now: remove them from OVERSIZED"


def test_the_measure_sees_long_and_wide_functions(tmp_path):
    wide = ", ".join(f"a{i}" for i in range(11))
    body = "\n".join(f"    x{i} = {i}" for i in range(80))
    (tmp_path / "m.py").write_text(
        f"class C:\n    def f(self, {wide}):\n        pass\n\n\ndef g():\n{body}\n\n\n"
        f"class L(keras.layers.Layer):\n    def __init__(self, {wide}):\n        pass\n\n\n"
        f"class M(L):\n    def __init__(self, *a, **k):\n        pass\n"
    )
    found = {name: (lines, parameters, keras) for name, lines, parameters, keras in measured_functions(tmp_path)}
    assert found == {
        "m.py:C.f": (2, 11, False),
        "m.py:g": (81, 0, False),
        "m.py:L.__init__": (2, 11, True),
        "m.py:M.__init__": (2, 2, True),
    }
