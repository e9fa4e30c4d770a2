"""The model kinds keras-skim trains, exports and runs, in one table (no imports).

A model kind is what `metadata.json` calls `model_kind`; its row also gives
its `keras-skim train --cell` name, its custom op, the `read_mask` codes it
writes, whether a threshold applies and the training defaults of the CLI.
A model family (`FAMILIES`) is what several kinds share: one trainer, one
exporter, one set of CLI commands, one statistics report. Each is named by
an import path ("module:attribute"), loaded only when asked
(`load(path)`), so this module stays a leaf that every room may import:
the file contracts (`keras_skim.contracts`) re-export its codes and op
names, the runtime asks it without Keras.

The CLI, the runtime, `bench`, the metadata checks and the custom-op library
ask this table what a kind does (`kind.jumps`, `kind.threshold_applies`,
`family_of(kind).commands`) instead of comparing kind names, so that a new
kind is one row here plus its family's own files.

    from keras_skim.model_kinds import kind_of
    kind_of(metadata).threshold_applies   # False for a jump model
"""

import dataclasses
import importlib

# The one per-token code table: the codes of every export's int32 `read_mask`
# output and of `reading_positions(...)["status"]` on the Keras side, the
# same in the Python runtime, `keras-skim show` and the app. Skim models use 0 and 1 only (their
# padding is 0); a jump model (Structural-Jump-LSTM) uses all four (its
# padding and punctuation are 3).
TOKEN_SKIMMED = 0  # skimmed by the small cell, or skipped by a jump model's skip agent (skim models: and padding)
TOKEN_READ = 1  # read by the big cell (the LSTM)
TOKEN_JUMPED = 2  # jumped over: never touched
TOKEN_NOT_A_WORD = 3  # punctuation that steers a jump model's jumps, never read, and a jump model's padding
TOKEN_CODES = {TOKEN_SKIMMED: "skimmed", TOKEN_READ: "read", TOKEN_JUMPED: "jumped", TOKEN_NOT_A_WORD: "not a word"}


@dataclasses.dataclass(frozen=True)
class ModelKind:
    """One family of exported models.

    Attributes:
        name: The metadata `model_kind` ("skim_lstm", ...).
        title: How reports name it.
        custom_op: The LiteRT custom op of its custom-op export, or None
            (builtin graph only).
        skims: A per-token read/skim gate decides by the threshold.
        jumps: It skips and jumps words: its `read_mask` uses all four
            `TOKEN_*` codes and it has a `visited_count` output.
        mask_codes: The codes its `read_mask` holds.
        family: The name of its `ModelFamily` (`FAMILIES`).
        cli_name: Its `keras-skim train --cell` value, or None (not
            trained by the CLI).
        description: One line for `--cell`'s help.
        units, learning_rate: The CLI's default state size and learning rate.
        batch_size: The CLI's default batch size; None lets the family's
            trainer choose (per data set).
    """

    name: str
    title: str
    custom_op: str = None
    skims: bool = False
    jumps: bool = False
    mask_codes: tuple = (TOKEN_READ,)
    family: str = "text_classifier"
    cli_name: str = None
    description: str = ""
    units: int = 100
    learning_rate: float = 1e-3
    batch_size: int = 64

    @property
    def threshold_applies(self):
        """Whether a threshold changes anything (the skim gate's cut): only
        then does the kind's export signature have a `threshold` input."""
        return self.skims


@dataclasses.dataclass(frozen=True)
class ModelFamily:
    """What the kinds of one model family share; each piece is an import
    path "module:attribute" (`load`), so that asking the table imports
    nothing.

    Attributes:
        name: The family's key in `FAMILIES`.
        trainer: The function that builds, fits and evaluates a model of
            the family on encoded data; the one training pipeline
            (`keras_skim.training.pipeline.train_model`) calls it.
        exporter: The family's export module, whose `EXPORTER` (a
            `keras_skim.export.family_exporter.FamilyExporter`) is all that
            `keras_skim.export` asks of the family: its planners, its
            builtin graph and custom op, its metadata entries, its parity
            reference and its backend note.
        commands: The family's `keras-skim` command pieces
            (`keras_skim.cli`): its train options, and its evaluate and
            show reports where they differ from a text classifier's; None:
            the text classifier's own.
        model_class: The registered Keras name of the family's
            `keras.Model` class (how a loaded model is recognised), or None
            (a functional text classifier).
        flop_report: Its FLOP counts from per-text statistics (`bench`
            asks it for kinds that jump), or None.
    """

    name: str
    trainer: str
    exporter: str
    commands: str = None
    model_class: str = None
    flop_report: str = None


FAMILIES = {
    family.name: family
    for family in (
        ModelFamily(
            "text_classifier",
            trainer="keras_skim.models.text_classifier.text_classifier_training:fit_text_classifier",
            exporter="keras_skim.models.text_classifier.text_classifier_exporter",
            commands="keras_skim.models.text_classifier.text_classifier_commands",
        ),
        ModelFamily(
            "structural_jump",
            trainer="keras_skim.models.structural_jump.structural_jump_training:fit_structural_jump_model",
            exporter="keras_skim.models.structural_jump.structural_jump_exporter",
            commands="keras_skim.models.structural_jump.structural_jump_commands",
            model_class="keras_skim>StructuralJumpLSTM",
            flop_report="keras_skim.models.structural_jump.structural_jump_flops:structural_jump_flop_report",
        ),
    )
}

_SKIM_CODES = (TOKEN_SKIMMED, TOKEN_READ)
_JUMP_CODES = (TOKEN_SKIMMED, TOKEN_READ, TOKEN_JUMPED, TOKEN_NOT_A_WORD)

# The kinds with a custom op come first, in the order of the op library's table (litert_ops/kernels/library_ops.cc).
KINDS = {
    kind.name: kind
    for kind in (
        ModelKind(
            "skim_lstm",
            "Skim-LSTM",
            "KerasSkimLSTM",
            skims=True,
            mask_codes=_SKIM_CODES,
            cli_name="skim-lstm",
            description="Skim-LSTM (Seo et al. 2018): a big and a small LSTM",
        ),
        # The paper's sizes and rates (Hansen et al. 2019): LSTM 128, RMSprop 0.0005, batch 32 for
        # Rotten Tomatoes and 100 for IMDB (the trainer's choice).
        ModelKind(
            "structural_jump_lstm",
            "Structural-Jump-LSTM",
            "KerasSjLSTM",
            jumps=True,
            mask_codes=_JUMP_CODES,
            family="structural_jump",
            cli_name="sj-lstm",
            description="Structural-Jump-LSTM (Hansen et al. 2019): skips words and jumps to the next , ; or . ! ? "
            "or the end",
            units=128,
            learning_rate=5e-4,
            batch_size=None,
        ),
        ModelKind(
            "skim_gru",
            "Skim-GRU",
            "KerasSkimGRU",
            skims=True,
            mask_codes=_SKIM_CODES,
            cli_name="skim-gru",
            description="Skim-GRU: a big and a small GRU",
        ),
        ModelKind("lstm", "LSTM", cli_name="lstm", description="LSTM baseline (reads every token)"),
        ModelKind("gru", "GRU", cli_name="gru", description="GRU baseline (reads every token)"),
        ModelKind("scornn", "scoRNN"),
    )
}
# Custom LiteRT ops, by the model kind that uses them (the op library registers them all).
CUSTOM_OPS = {name: kind.custom_op for name, kind in KINDS.items() if kind.custom_op}

# `keras-skim train --cell` choices, in the order of its help.
_CLI_ORDER = ("skim_lstm", "skim_gru", "lstm", "gru", "structural_jump_lstm")
CLI_KINDS = {KINDS[name].cli_name: KINDS[name] for name in _CLI_ORDER}
CELL_HELP = "; ".join(f"{name}: {kind.description}" for name, kind in CLI_KINDS.items())


def kind_of(metadata_or_name):
    """The `ModelKind` of an export's metadata (an `ExportMetadata` record
    or its JSON dict) or of a kind name.

    Raises:
        ValueError: an unknown kind (one line naming the known ones).
    """
    if isinstance(metadata_or_name, dict):
        name = metadata_or_name.get("model_kind")
    else:
        name = getattr(metadata_or_name, "model_kind", metadata_or_name)
    if name not in KINDS:
        raise ValueError(f"unknown model_kind {name!r}; expected one of {', '.join(KINDS)}")
    return KINDS[name]


def cli_kind(cell):
    """The `ModelKind` of a `--cell` value; ValueError (one line) for an unknown one."""
    if cell not in CLI_KINDS:
        raise ValueError(f"unknown cell {cell!r}; expected one of {', '.join(CLI_KINDS)}")
    return CLI_KINDS[cell]


def family_of(kind):
    """The `ModelFamily` of a `ModelKind` (or of a kind name)."""
    return FAMILIES[kind_of(kind).family if isinstance(kind, str) else kind.family]


def family_of_model_class(registered_name):
    """The family whose `keras.Model` class is registered as `registered_name`
    (`keras.saving.get_registered_name(type(model))`); the text classifier's
    for any other model (a functional one)."""
    for family in FAMILIES.values():
        if family.model_class is not None and family.model_class == registered_name:
            return family
    return FAMILIES["text_classifier"]


def cli_names(family):
    """The `--cell` values of a family's kinds."""
    return [cell for cell, kind in CLI_KINDS.items() if kind.family == family.name]


def text_classifier_cells():
    """The `--cell` values `build_text_classifier` builds."""
    return tuple(cli_names(FAMILIES["text_classifier"]))


def load(path):
    """The object an import path "module:attribute" names (imports the module)."""
    module, _, attribute = path.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, attribute) if attribute else loaded
