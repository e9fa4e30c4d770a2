"""The model kinds keras-skim exports and runs, in one table (no imports).

A model kind is what `metadata.json` calls `model_kind`: the family of an
exported model. The runtime, `bench`, the metadata checks and the custom-op
library ask this table what a kind does (`kind.jumps`,
`kind.threshold_applies`, its custom op, the `read_mask` codes it writes)
instead of comparing kind names, so that a new kind is one row here plus
the family's own folders. It is a leaf module (the file contracts in
`keras_skim.contracts` re-export its codes and op names), so every room may
ask it.

    from keras_skim.model_kinds import kind_of
    kind_of(metadata).threshold_applies   # False for a jump model
"""

import dataclasses

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
    """

    name: str
    title: str
    custom_op: str = None
    skims: bool = False
    jumps: bool = False
    mask_codes: tuple = (TOKEN_READ,)

    @property
    def threshold_applies(self):
        """Whether a threshold changes anything (the skim gate's cut): only
        then does the kind's export signature have a `threshold` input."""
        return self.skims


_SKIM_CODES = (TOKEN_SKIMMED, TOKEN_READ)
_JUMP_CODES = (TOKEN_SKIMMED, TOKEN_READ, TOKEN_JUMPED, TOKEN_NOT_A_WORD)

# The kinds with a custom op come first, in the order of the op library's table (litert_ops/kernels/library_ops.cc).
KINDS = {
    kind.name: kind
    for kind in (
        ModelKind("skim_lstm", "Skim-LSTM", "KerasSkimLSTM", skims=True, mask_codes=_SKIM_CODES),
        ModelKind("structural_jump_lstm", "Structural-Jump-LSTM", "KerasSjLSTM", jumps=True, mask_codes=_JUMP_CODES),
        ModelKind("skim_gru", "Skim-GRU", "KerasSkimGRU", skims=True, mask_codes=_SKIM_CODES),
        ModelKind("lstm", "LSTM"),
        ModelKind("gru", "GRU"),
        ModelKind("scornn", "scoRNN"),
    )
}
# Custom LiteRT ops, by the model kind that uses them (the op library registers them all).
CUSTOM_OPS = {name: kind.custom_op for name, kind in KINDS.items() if kind.custom_op}


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
