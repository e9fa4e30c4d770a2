"""No module outside a model family's folder names that family.

A model family lives in one folder, `keras_skim/models/<family>/`, and one row
of the family table (`keras_skim/model_kinds.py`); everything else asks the
table (`kind.jumps`, `family_of(kind).commands`, `load(...)`) instead of
naming it. This test greps every module of `keras_skim/` (code, docstrings and
comments alike) for each family's names and fails for a module outside that
family's folder, so a new branch on a family cannot slip into an engine.
"""

import pathlib
import re

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "keras_skim"

# folder under keras_skim/models/ -> every spelling the family has had: class and cell names, the metadata
# kinds, the CLI names and the ops.
FAMILY_NAMES = {
    "structural_jump": re.compile(r"structural[ _-]?jump|sj[-_]lstm|KerasSjLSTM", re.IGNORECASE),
    "skim_rnn": re.compile(r"skim[ _-]?(lstm|gru|rnn)|KerasSkim(LSTM|GRU)|SkimCell|skim_cell", re.IGNORECASE),
    "scornn": re.compile(r"scornn|scaled cayley", re.IGNORECASE),
    "span_qa": re.compile(r"span[ _-]?qa|LSTMAttentionQA|BiDAF|lstm-attention|span[ _]reader", re.IGNORECASE),
}
# The table that maps the families' names, and the package's index of public names.
INDEX_FILES = {"model_kinds.py", "__init__.py"}


def modules_naming(pattern, package=PACKAGE):
    found = set()
    for path in package.rglob("*.py"):
        if pattern.search(path.read_text(encoding="utf-8")):
            found.add(path.relative_to(package).as_posix())
    return found


def strangers(family, package=PACKAGE):
    """The modules of `package` that name `family` but are outside its folder and the index."""
    own = f"models/{family}/"
    return sorted(
        m for m in modules_naming(FAMILY_NAMES[family], package) if not m.startswith(own) and m not in INDEX_FILES
    )


def test_no_module_outside_a_family_names_it():
    found = {family: strangers(family) for family in FAMILY_NAMES}
    assert found == {family: [] for family in FAMILY_NAMES}, "ask keras_skim.model_kinds instead"


def test_a_stranger_naming_the_family_is_found(tmp_path):
    # The check fails for a module outside the family's folder, in code or in a comment, in any spelling.
    (tmp_path / "export").mkdir()
    (tmp_path / "models" / "structural_jump").mkdir(parents=True)
    (tmp_path / "export" / "exporter.py").write_text("if plan.model_kind == 'structural_jump_lstm':\n    pass\n")
    (tmp_path / "export" / "metadata.py").write_text("# the KerasSjLSTM op's extra output\n")
    (tmp_path / "models" / "structural_jump" / "exporter.py").write_text("MODEL = 'StructuralJumpLSTM'\n")
    (tmp_path / "model_kinds.py").write_text("CLI = 'sj-lstm'\n")
    assert strangers("structural_jump", tmp_path) == ["export/exporter.py", "export/metadata.py"]


def test_the_grep_finds_each_family_where_it_lives():
    # Guards the patterns themselves: each family's own files must match, or the first test passes vacuously.
    for family, pattern in FAMILY_NAMES.items():
        found = modules_naming(pattern)
        assert "model_kinds.py" in found or family == "scornn", family
        assert any(m.startswith(f"models/{family}/") for m in found), family
    assert (PACKAGE / "models" / "structural_jump" / "structural_jump_lstm_cell.py").exists()
