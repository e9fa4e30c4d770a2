"""Where presets are found: names, local folders and hub handles (no TensorFlow).

A preset is named in one of these ways, tried in this order:

* `file://PATH` or a local folder that exists: that folder;
* `hf://OWNER/REPO`: the Hugging Face Hub repository, downloaded whole with
  `huggingface_hub.snapshot_download` (the user's own install; imported only then);
* `kaggle://OWNER/MODEL/keras/VARIANT[/VERSION]`: the Kaggle model, downloaded
  with `kagglehub.model_download` (likewise);
* a name (`[a-z][a-z0-9_]*`): the first presets root holding a folder of
  that name with a `preset.json` (`preset_roots` lists the roots).
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.metadata
import os
import pathlib
import re

from keras_skim.presets.preset_card import CARD_FILE, PresetError, read_card

# Folders of presets named by the user, before any other root (os.pathsep-separated).
ROOTS_VARIABLE = "KERAS_SKIM_PRESETS"
# Entry points of this group name a module whose folder is a presets root
# (the keras-skim-presets distribution declares one; others may too).
ENTRY_POINT_GROUP = "keras_skim.presets"
# The repository's own presets tree, next to the package in a checkout; its
# pyproject.toml (the presets distribution's) tells it from a stray folder.
CHECKOUT_ROOT = pathlib.Path(__file__).resolve().parents[2] / "presets"
NAME_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,63}")
HANDLE_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
HF_PREFIX = "hf://"
KAGGLE_PREFIX = "kaggle://"
FILE_PREFIX = "file://"


@dataclasses.dataclass(frozen=True)
class PresetRoot:
    """A folder holding preset folders, and where it came from (for `keras-skim presets`)."""

    path: str
    origin: str


def preset_roots() -> list[PresetRoot]:
    """The presets roots, first wins: `$KERAS_SKIM_PRESETS`, the checkout's
    `presets/`, then each installed entry point of `keras_skim.presets`."""
    roots = [PresetRoot(part, ROOTS_VARIABLE) for part in os.environ.get(ROOTS_VARIABLE, "").split(os.pathsep) if part]
    if (CHECKOUT_ROOT / "pyproject.toml").is_file():
        roots.append(PresetRoot(str(CHECKOUT_ROOT), "checkout"))
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            module = importlib.import_module(entry.value.split(":")[0])
        except ImportError as err:
            raise PresetError(
                f"entry point {entry.name} = {entry.value} ({ENTRY_POINT_GROUP}): cannot import ({err})"
            ) from None
        distribution = entry.dist.name if entry.dist is not None else entry.value
        roots.append(PresetRoot(os.path.dirname(os.path.abspath(module.__file__)), distribution))
    return roots


def _root_presets(root):
    """{name: folder} of the preset folders directly under a root."""
    try:
        names = sorted(os.listdir(root.path))
    except OSError:
        return {}
    found = {}
    for name in names:
        folder = os.path.join(root.path, name)
        if NAME_PATTERN.fullmatch(name) and os.path.isfile(os.path.join(folder, CARD_FILE)):
            found[name] = folder
    return found


def known_presets():
    """{name: (folder, PresetRoot)} over every root, the first root's folder for a name."""
    found = {}
    for root in preset_roots():
        for name, folder in _root_presets(root).items():
            found.setdefault(name, (folder, root))
    return found


def is_handle(text):
    """Whether `text` is a `scheme://` handle rather than a path or a name."""
    return HANDLE_PATTERN.match(text) is not None


def _download_hf(handle):
    try:
        import huggingface_hub
    except ImportError:
        raise PresetError(
            f"{handle}: loading from the Hugging Face Hub needs huggingface_hub: pip install huggingface_hub"
        ) from None
    repo_id = handle[len(HF_PREFIX) :].strip("/")
    if repo_id.count("/") != 1:
        raise PresetError(f"{handle}: expected hf://OWNER/REPO")
    try:
        return huggingface_hub.snapshot_download(repo_id=repo_id)
    except Exception as err:  # the hub's errors are many classes; each is one line here
        raise PresetError(f"{handle}: could not download ({_first_line(err)})") from None


def _download_kaggle(handle):
    try:
        import kagglehub
    except ImportError:
        raise PresetError(f"{handle}: loading from Kaggle needs kagglehub: pip install kagglehub") from None
    model = handle[len(KAGGLE_PREFIX) :].strip("/")
    if len(model.split("/")) not in (4, 5):
        raise PresetError(f"{handle}: expected kaggle://OWNER/MODEL/keras/VARIANT[/VERSION]")
    try:
        return kagglehub.model_download(model)
    except Exception as err:  # likewise
        raise PresetError(f"{handle}: could not download ({_first_line(err)})") from None


def _first_line(err):
    text = str(err).strip() or type(err).__name__
    return text.splitlines()[0][:300]


def _handle_folder(handle):
    lowered = handle.lower()
    if lowered.startswith(FILE_PREFIX):
        return handle[len(FILE_PREFIX) :]
    if lowered.startswith(HF_PREFIX):
        return _download_hf(handle)
    if lowered.startswith(KAGGLE_PREFIX):
        return _download_kaggle(handle)
    scheme = handle.split("://", 1)[0]
    raise PresetError(f"{handle}: unknown preset scheme {scheme!r} (expected file://, hf:// or kaggle://)")


def local_preset_path(preset: str | os.PathLike[str]) -> str | os.PathLike[str]:
    """The local folder of a preset handle or name (downloading a hub handle;
    its `preset.json` checked), or `preset` itself when it is a path that
    exists or names no preset, so that a command's own "no such file" error
    stays as it was."""
    preset = os.fspath(preset)
    if os.path.exists(preset):
        return preset
    folder = None
    if is_handle(preset):
        folder = _handle_folder(preset)
    elif NAME_PATTERN.fullmatch(preset):
        folder = known_presets().get(preset, (None,))[0]
    if folder is None:
        return preset
    if os.path.isdir(folder):
        read_preset_card(folder)
    return folder


def preset_path(preset: str | os.PathLike[str]) -> str:
    """`local_preset_path`, but PresetError (one line) for a preset that is not there."""
    path = local_preset_path(preset)
    if not os.path.isdir(path):
        known = ", ".join(sorted(known_presets())) or "none installed"
        raise PresetError(f"{preset}: not a preset folder, handle or known preset name (known: {known})")
    return path


def read_preset_card(folder):
    """The checked card of a preset folder."""
    return read_card(os.path.join(folder, CARD_FILE))
