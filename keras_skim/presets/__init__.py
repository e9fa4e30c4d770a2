"""Trained models to start from: presets, as keras-hub has them.

A preset is a model folder as `keras-skim train` writes it (`model.keras`,
`tokenizer.json`, `train_config.json`) plus `preset.json`, its card as data
(`PresetCard`: data, split, test accuracy, skim rate or read fraction,
Flop-R, baseline, the exact training command, commit, license), and a
README.md model card written from that card.

    model = keras_skim.from_preset("NAME")                       # the Keras model
    model, tokenizer = keras_skim.from_preset("NAME", tokenizer=True)
    tokenizer = keras_skim.tokenizer_from_preset("NAME")         # no TensorFlow
    keras_skim.list_presets()                                    # {name: PresetCard}

`NAME` is a preset name, a local folder, `file://PATH`, `hf://OWNER/REPO` or
`kaggle://OWNER/MODEL/keras/VARIANT[/VERSION]` (`preset_sources`). Every
CLI command that takes a model folder takes these too.

Where the weights live. The runtime wheel (`pip install keras-skim`) holds
no weights, so it stays small. The repository holds them, as the evidence,
in a top-level `presets/NAME/` tree, one folder per preset, next to the
training histories in `benchmarks/results/`. The same tree is a second,
separate distribution, `keras-skim-presets` (its own `presets/pyproject.toml`,
as spaCy ships its models apart from spaCy): installing it declares an entry
point in the group `keras_skim.presets` whose module's folder is a presets
root. `list_presets()` and every name lookup read, first match wins:
`$KERAS_SKIM_PRESETS` (folders, os.pathsep-separated), the checkout's
`presets/` (when keras_skim runs from a checkout), then the installed entry
points. The same folders can be uploaded to the Hugging Face Hub or Kaggle
as they are and loaded with `hf://` or `kaggle://`.

`from_preset` loads the model with Keras' safe mode through
`keras_skim.model_io` (no code runs from the file). A preset's tokenizer
is `keras_skim.datasets.Tokenizer`; there is no `Tokenizer.from_preset`
because the datasets room sits below this one in the import graph
(tests/test_import_graph.py): ask `from_preset(..., tokenizer=True)` or
`tokenizer_from_preset` instead.
"""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING, Any

from keras_skim.presets.preset_card import CARD_FILE, README_FILE, Baseline, PresetCard, PresetError, read_card
from keras_skim.presets.preset_sources import known_presets, local_preset_path, preset_path, preset_roots

if TYPE_CHECKING:
    from keras_skim.datasets.tokenizer import Tokenizer

__all__ = [
    "CARD_FILE",
    "README_FILE",
    "Baseline",
    "PresetCard",
    "PresetError",
    "PresetFolder",
    "from_preset",
    "list_presets",
    "local_preset_path",
    "preset_folder",
    "preset_roots",
    "read_card",
    "tokenizer_from_preset",
]


@dataclasses.dataclass(frozen=True)
class PresetFolder:
    """A preset's files (`tokenizer` None where the model reads no text) and its checked card."""

    folder: str
    model: str
    tokenizer: str | None
    card: PresetCard


def preset_folder(preset: str | os.PathLike[str]) -> PresetFolder:
    """Finds a preset (name, folder or handle) -> `PresetFolder`; PresetError (one line) otherwise."""
    from keras_skim import contracts

    folder = preset_path(preset)
    card = read_card(os.path.join(folder, CARD_FILE))
    try:
        files = contracts.resolve_model(folder)
    except contracts.ContractError as err:
        raise PresetError(str(err)) from None
    return PresetFolder(folder, files.model, files.tokenizer, card)


def tokenizer_from_preset(preset: str | os.PathLike[str]) -> Tokenizer:
    """The `keras_skim.datasets.Tokenizer` of a preset (TensorFlow-free).

    Raises:
        PresetError: no such preset, a bad card, or a preset without a tokenizer.
        ValueError: a bad `tokenizer.json` (one line, naming it).
    """
    from keras_skim.datasets.tokenizer import Tokenizer

    found = preset_folder(preset)
    if found.tokenizer is None:
        raise PresetError(f"{found.folder}: the preset has no tokenizer.json (its model reads no text)")
    return Tokenizer.load(found.tokenizer)


def from_preset(preset: str | os.PathLike[str], tokenizer: bool = False) -> Any:
    """Loads a trained model from a preset.

    Args:
        preset: a preset name (see `list_presets()`), a preset folder,
            `file://PATH`, `hf://OWNER/REPO` or
            `kaggle://OWNER/MODEL/keras/VARIANT[/VERSION]`.
        tokenizer: also return the preset's tokenizer.

    Returns:
        The Keras model (loaded in safe mode), or `(model, tokenizer)` with
        `tokenizer=True`.

    Raises:
        PresetError: the preset cannot be found or its card is bad (one line).
        keras_skim.model_io.ModelLoadError: the model file cannot be loaded (one line).
    """
    from keras_skim.model_io import load_model

    found = preset_folder(preset)
    model = load_model(found.model)
    if tokenizer:
        return model, tokenizer_from_preset(found.folder)
    return model


def list_presets() -> dict[str, PresetCard]:
    """The presets this install can load by name -> `{name: PresetCard}`,
    sorted by name (roots: see this module's docstring)."""
    return {name: read_card(os.path.join(folder, CARD_FILE)) for name, (folder, _) in sorted(known_presets().items())}
