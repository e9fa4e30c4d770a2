"""Every package keras_skim imports is declared in pyproject.toml (the base
install or an extra), and every `keras-skim COMMAND --option` that
pyproject.toml's comments name exists. Read from the source with `ast`: no
module is imported."""

import ast
import os
import re
import sys
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "keras_skim")
# Importlib calls whose first argument names a module the code imports by name.
_IMPORTING_CALLS = {"import_module", "find_spec"}


def _pyproject():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)


def _normalized(name):
    """A distribution or import name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def declared_distributions(project):
    """{normalized distribution name: [where declared]} of the base install and every extra."""
    groups = {"dependencies": project["dependencies"], **project.get("optional-dependencies", {})}
    declared = {}
    for group, requirements in groups.items():
        for requirement in requirements:
            name = re.match(r"[A-Za-z0-9_.\-]+", requirement).group(0)
            declared.setdefault(_normalized(name), []).append(group)
    return declared


def imported_modules(source):
    """The top-level names of the absolute imports in `source` (import
    statements and `importlib.import_module("x")` / `find_spec("x")`)."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            function = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if function in _IMPORTING_CALLS and isinstance(node.args[0].value, str):
                names.add(node.args[0].value.split(".")[0])
    return names


def third_party(names):
    return {name for name in names if name and name not in sys.stdlib_module_names and name != "keras_skim"}


def undeclared(sources, declared):
    """{import name: [files]} of the third-party imports no requirement declares."""
    missing = {}
    for path, source in sources.items():
        for name in third_party(imported_modules(source)):
            if _normalized(name) not in declared:
                missing.setdefault(name, []).append(path)
    return missing


def _package_sources():
    sources = {}
    for folder, _, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    sources[os.path.relpath(path, ROOT)] = f.read()
    return sources


def test_every_imported_package_is_declared():
    sources = _package_sources()
    assert len(sources) > 100
    imported = set().union(*(third_party(imported_modules(s)) for s in sources.values()))
    # the ones the runtime, training and presets need are seen (the scan works)
    assert {"numpy", "ai_edge_litert", "keras", "tqdm", "tensorflow_datasets", "huggingface_hub"} <= imported
    assert undeclared(sources, declared_distributions(_pyproject()["project"])) == {}


def test_an_undeclared_import_is_found():
    declared = {"numpy": ["dependencies"], "tqdm": ["train"]}
    snippet = (
        "import os, numpy as np\nfrom tqdm.auto import tqdm\nfrom . import sibling\n"
        "import importlib\nimportlib.import_module('yaml')\ndef f():\n    import requests.adapters\n"
    )
    assert undeclared({"m.py": snippet}, declared) == {"yaml": ["m.py"], "requests": ["m.py"]}


def test_commands_named_in_pyproject_exist():
    """A comment such as "`keras-skim bench --thresholds ... -o`" names options the CLI has."""
    from keras_skim.cli.main import build_parser

    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    commands = build_parser()._subparsers._group_actions[0].choices
    named = re.findall(r"`keras-skim (\w+)([^`]*)`", text)
    assert named, "pyproject.toml names no keras-skim command"
    for command, rest in named:
        assert command in commands, command
        options = set(commands[command]._option_string_actions)
        for option in re.findall(r"(?<!\S)(--?[A-Za-z][\w-]*)", rest):
            assert option in options, f"pyproject.toml names `keras-skim {command} {option}`, which does not exist"
