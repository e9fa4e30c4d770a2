"""No module outside the Structural-Jump family's own files names the family.

A model family lives in its own files and one row of the model-kind table
(`keras_skim/model_kinds.py`); everything else asks the table (`kind.jumps`,
`family_of(kind).commands`) instead of naming it. This test greps every
module of `keras_skim/` (code, docstrings and comments alike) for the
family's names and fails for a module that is not the family's, so a new
branch on the family cannot slip in.
"""

import pathlib
import re

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "keras_skim"

# Every spelling the family has had: the class and cell names, the metadata kind, the CLI name and the op.
FAMILY_NAMES = re.compile(r"structural[ _-]?jump|sj[-_]lstm|KerasSjLSTM", re.IGNORECASE)

# The family's own files: its modules are named after it in each room (layers, models, training,
# analysis, export, cli), plus the pieces below that only it uses.
FAMILY_PATTERN = "*structural_jump*.py"
FAMILY_FILES = {
    "layers/text_structure.py",  # its input layer (the word stream and the jump targets)
    "models/actor_critic_loss.py",  # its loss
    "training/critic_warmup.py",  # its callbacks and optimizer
    "training/entropy_weight_decay.py",
    "training/per_tensor_clip_rmsprop.py",
}
# The table that maps the family's names, and the package's index of public names.
INDEX_FILES = {"model_kinds.py", "__init__.py"}


def modules_naming_the_family(package=PACKAGE):
    found = set()
    for path in package.rglob("*.py"):
        if FAMILY_NAMES.search(path.read_text(encoding="utf-8")):
            found.add(path.relative_to(package).as_posix())
    return found


def is_the_family_s(relative):
    return pathlib.PurePosixPath(relative).match(FAMILY_PATTERN) or relative in FAMILY_FILES | INDEX_FILES


def strangers(package=PACKAGE):
    """The modules of `package` that name the family but are not its own."""
    return sorted(m for m in modules_naming_the_family(package) if not is_the_family_s(m))


def test_no_module_outside_the_family_names_it():
    assert strangers() == [], "these modules name the Structural-Jump family: ask keras_skim.model_kinds instead"


def test_a_stranger_naming_the_family_is_found(tmp_path):
    # The check fails for a module outside the family's files, in code or in a comment, in any spelling.
    (tmp_path / "export").mkdir()
    (tmp_path / "export" / "exporter.py").write_text("if plan.model_kind == 'structural_jump_lstm':\n    pass\n")
    (tmp_path / "export" / "metadata.py").write_text("# the KerasSjLSTM op's extra output\n")
    (tmp_path / "export" / "structural_jump_exporter.py").write_text("MODEL = 'StructuralJumpLSTM'\n")
    (tmp_path / "model_kinds.py").write_text("CLI = 'sj-lstm'\n")
    assert strangers(tmp_path) == ["export/exporter.py", "export/metadata.py"]


def test_the_grep_finds_the_family_where_it_lives():
    # Guards the pattern itself: the family's own files must match, or the first test passes vacuously.
    found = modules_naming_the_family()
    assert {"model_kinds.py", "cli/structural_jump_commands.py", "layers/structural_jump_lstm_cell.py"} <= found
    assert all((PACKAGE / name).exists() for name in FAMILY_FILES)
