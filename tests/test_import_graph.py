"""The import graph of `keras_skim/`: no cycles, nothing that runs back up the flow.

The flow (`data -> cells -> models -> training -> model folder -> export -> export folder -> runtime ->
commands`) is read from the source text with `ast`, lazy imports inside functions included: a lazy
import is still a dependency, and a cycle through one is still a cycle. Each rule below names the
edge that breaks it, so a failure says which import to move.
"""

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "keras_skim"

# Rooms (sub-packages or top-level modules of keras_skim) and the rooms each must never import. A model
# family's folder (`keras_skim/models/<family>/`) is the room "family": families sit above the engines and may
# use them; an engine reaches a family only through the family table (`model_kinds`, lazy "module:attr" strings).
# Why each rule: the runtime and the native library run on a device without Keras or TensorFlow, export reads
# a trained model and never trains, and the CLI is the top of the engines' flow.
FORBIDDEN = {
    "runtime": {"family", "training", "export", "cli", "model_io"},
    "litert_ops": {"runtime", "family", "training", "export", "cli", "model_io"},
    "export": {"training", "cli", "family"},
    "datasets": {"family", "training", "export", "runtime", "litert_ops", "cli"},
    "contracts": {"family", "training", "export", "runtime", "litert_ops", "cli", "datasets"},
    "analysis": {"family", "training", "export", "runtime", "litert_ops", "cli"},
    "training": {"family", "export", "runtime", "litert_ops", "cli"},
    "cli": {"family"},
    "presets": {"family", "training", "export", "runtime", "litert_ops", "cli"},
    "family": {"runtime", "litert_ops"},
}
# Third-party packages a room must not import, even lazily.
FORBIDDEN_THIRD_PARTY = {
    "runtime": {"keras", "tensorflow", "tf_keras"},
    "litert_ops": {"keras", "tensorflow", "tf_keras"},
    "contracts": {"keras", "tensorflow", "tf_keras"},
}


def module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def resolve(module, node, is_package, modules):
    """Absolute module names that one import statement names."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        anchor = module.split(".")
        anchor = anchor if is_package else anchor[:-1]
        anchor = anchor[: len(anchor) - (node.level - 1)]
        base = ".".join(anchor + ([base] if base else []))
    # `from keras_skim.x import y` depends on module x.y when y is a module, else on x.
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]


def import_graph():
    """{module: {imported module or third-party top-level name}} over keras_skim/."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for module, path in modules.items():
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for name in resolve(module, node, path.name == "__init__.py", modules):
                if name.startswith("keras_skim"):
                    edges.update(known for known in (name,) if known in modules)
                else:
                    edges.add(name.split(".")[0])
        graph[module] = edges - {module}
    return graph


def room(module):
    parts = module.split(".")
    if len(parts) > 3 and parts[1] == "models":
        return "family"
    return parts[1] if len(parts) > 1 else "(package)"


def strongly_connected(graph):
    """Tarjan's components of more than one module (the cycles)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in graph:
                continue
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


@pytest.fixture(scope="module")
def graph():
    return import_graph()


def test_the_graph_is_read(graph):
    # Guards the reader itself: known edges must be seen, or every rule below would pass vacuously.
    assert "keras_skim.contracts" in graph["keras_skim.runtime.runner"]
    assert "keras" in graph["keras_skim.models.skim_rnn.skim_lstm_cell"]
    assert len(graph) > 50


def test_no_import_cycle_between_modules(graph):
    assert strongly_connected(graph) == []


def test_no_import_cycle_between_rooms(graph):
    rooms = {}
    for module, edges in graph.items():
        rooms.setdefault(room(module), set()).update(room(e) for e in edges if e.startswith("keras_skim"))
    for name in rooms:
        rooms[name].discard(name)
    assert strongly_connected(rooms) == []


def test_no_import_runs_back_up_the_flow(graph):
    wrong = sorted(
        f"{module} -> {target}"
        for module, edges in graph.items()
        for target in edges
        if target.startswith("keras_skim") and room(target) in FORBIDDEN.get(room(module), ())
    )
    assert wrong == []


def test_no_engine_imports_a_family(graph):
    # Every room outside keras_skim/models/ (the rooms of FORBIDDEN and the top-level modules alike) reaches a
    # family only through the family table's lazy import paths.
    wrong = sorted(
        f"{module} -> {target}"
        for module, edges in graph.items()
        for target in edges
        if room(module) != "family" and target.startswith("keras_skim") and room(target) == "family"
    )
    assert wrong == []


def family_folder(module):
    """The family folder (`keras_skim/models/<family>/`) a module is in, or None."""
    return module.split(".")[2] if room(module) == "family" else None


def cross_family_imports(graph):
    """'a -> b' for each import of a family module by another family's module."""
    return sorted(
        f"{module} -> {target}"
        for module, edges in graph.items()
        for target in edges
        if family_folder(module) and family_folder(target) and family_folder(module) != family_folder(target)
    )


def test_no_family_imports_another(graph):
    # A family reaches another's pieces through the table (`model_kinds`: `ModelKind.layer`, `skim_gate()`),
    # and a helper two families need lives in an engine, so that a family's folder can be removed alone.
    assert cross_family_imports(graph) == []


def test_a_cross_family_import_is_found():
    graph = {
        "keras_skim.models.structural_jump.op_reference": {"keras_skim.models.skim_rnn.skim_op_cells", "numpy"},
        "keras_skim.models.skim_rnn.skim_op_cells": {"keras_skim.models.skim_rnn.skim_gate", "keras_skim.export"},
    }
    assert cross_family_imports(graph) == [
        "keras_skim.models.structural_jump.op_reference -> keras_skim.models.skim_rnn.skim_op_cells"
    ]


def test_device_side_rooms_import_no_keras_or_tensorflow(graph):
    wrong = sorted(
        f"{module} -> {target}"
        for module, edges in graph.items()
        for target in edges
        if target in FORBIDDEN_THIRD_PARTY.get(room(module), ())
    )
    assert wrong == []


def test_a_cycle_is_found_when_there_is_one():
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# The op library's C++ layers (keras_skim/litert_ops/), lowest first: a layer includes only itself and the
# layers before it, so the kernels stay free of LiteRT types and the LiteRT binding never reaches the runner.
NATIVE = PACKAGE / "litert_ops"
NATIVE_LAYERS = ("kernels", "litert", "runner")


def native_includes():
    """{(layer, file): [layer of each quoted #include]} over the op library's sources."""
    found = {}
    for layer in NATIVE_LAYERS:
        for path in sorted((NATIVE / layer).iterdir()):
            if path.suffix not in (".cc", ".h", ".inc"):
                continue
            targets = []
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.startswith('#include "'):
                    target = (path.parent / line.split('"')[1]).resolve()
                    targets.append(target.parent.name if target.parent.parent == NATIVE else None)
            found[(layer, path.name)] = targets
    return found


def test_native_layers_include_only_themselves_and_the_layers_below():
    includes = native_includes()
    assert ("runner", "model_runner.h") in includes and "kernels" in includes[("runner", "model_runner.h")]
    wrong = sorted(
        f"{layer}/{name} -> {target}"
        for (layer, name), targets in includes.items()
        for target in targets
        if target not in NATIVE_LAYERS[: NATIVE_LAYERS.index(layer) + 1]
    )
    assert wrong == []


def test_one_instruction_set_dispatch():
    switches = [
        f"{path.parent.name}/{path.name}"
        for path in sorted(NATIVE.rglob("*"))
        if path.suffix in (".cc", ".h", ".inc")
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip().startswith("switch (") and "isa" in line.lower()
    ]
    assert switches == ["kernels/simd_regions.inc"]
