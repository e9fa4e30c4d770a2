"""Loading Keras models safely (safe mode, one-line errors)."""

from __future__ import annotations

import os
import zipfile
from typing import Any

# Limits on what a .keras archive may inflate to before Keras reads it (a
# zip member never yields more than its declared size: Python's zipfile
# stops there and checks the CRC). Keras reads config.json and
# metadata.json whole; real ones are a few kB.
# Members past this size must not inflate more than MAX_COMPRESSION_RATIO
# times their compressed size: float weights and a config holding an
# embedding matrix (GloVe as a Constant initializer: about 20 MB of JSON for
# 20,000 x 50) barely compress, a zip bomb of spaces inflates 1000x.
MAX_CONFIG_BYTES = 16 << 20
MAX_COMPRESSION_RATIO = 100
# Keras parses a JSON member whole: this bounds the memory that takes.
MAX_JSON_MEMBER_BYTES = 512 << 20
MAX_ARCHIVE_BYTES = 8 << 30
MAX_ARCHIVE_MEMBERS = 10_000
# Keras inflates a model's `assets/` to a temporary folder on disk; no
# keras-skim layer keeps assets (the tokenizer is `tokenizer.json` beside
# the model), so a few MB is room enough for another layer's vocabulary.
MAX_ASSETS_BYTES = 16 << 20


class ModelLoadError(ValueError):
    """A model file that cannot be loaded; the message is one line."""


def check_archive(path):
    """Refuses (ModelLoadError) a .keras zip whose members would inflate
    past the limits above, before Keras opens it."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as err:
        raise ModelLoadError(f"{path}: not a readable Keras archive ({_first_line(err)})") from None
    if len(members) > MAX_ARCHIVE_MEMBERS:
        raise ModelLoadError(f"{path}: {len(members)} archive members (a Keras model has a few)")
    total = packed = assets = 0
    for member in members:
        total += member.file_size
        packed += member.compress_size
        if member.filename.startswith("assets/"):
            assets += member.file_size
        name = member.filename
        if name.endswith(".json") and member.file_size > MAX_JSON_MEMBER_BYTES:
            raise ModelLoadError(
                f"{path}: {name} inflates to {member.file_size} bytes (at most {MAX_JSON_MEMBER_BYTES}); refused"
            )
        if member.file_size > MAX_CONFIG_BYTES and member.file_size > MAX_COMPRESSION_RATIO * member.compress_size:
            raise ModelLoadError(
                f"{path}: {name} inflates to {member.file_size} bytes from {member.compress_size} "
                f"(more than {MAX_COMPRESSION_RATIO}x: a zip bomb?); refused"
            )
    if total > MAX_ARCHIVE_BYTES:
        raise ModelLoadError(f"{path}: the archive inflates to {total} bytes (at most {MAX_ARCHIVE_BYTES}); refused")
    if assets > MAX_ASSETS_BYTES:
        raise ModelLoadError(
            f"{path}: its assets/ inflate to {assets} bytes on disk (at most {MAX_ASSETS_BYTES}); refused"
        )
    # Many members each under the limit above: the whole archive's ratio.
    if total > MAX_CONFIG_BYTES and total > MAX_COMPRESSION_RATIO * packed:
        raise ModelLoadError(
            f"{path}: the archive inflates to {total} bytes from {packed} (more than {MAX_COMPRESSION_RATIO}x: "
            "a zip bomb?); refused"
        )


def load_model(path: str | os.PathLike[str], compile: bool = False) -> Any:
    """Loads a `.keras` or `.h5` model holding keras-skim layers.

    Uses Keras' safe mode (no arbitrary code from the file). Every failure
    becomes a one-line `ModelLoadError` naming the file and what was
    expected, instead of a traceback from deep inside Keras.

    Args:
        path: path of a `.keras` or `.h5` file.
        compile: whether to restore the training configuration. `.h5` files
            of compiled models often fail to restore it, so off by default.

    Returns:
        The Keras model.
    """
    import keras  # noqa: F401  (imported here to keep this module TF-free)

    import keras_skim

    keras_skim.register_layers()
    path = os.fspath(path)
    if not os.path.exists(path):
        raise ModelLoadError(f"{path}: no such file (expected a .keras or .h5 model)")
    if os.path.isdir(path):
        raise ModelLoadError(f"{path}: is a folder (expected a .keras or .h5 model file)")
    if not os.path.isfile(path):
        raise ModelLoadError(f"{path}: not a regular file (expected a .keras or .h5 model file)")
    ext = os.path.splitext(path)[1].lower()
    if ext == ".keras":
        if not zipfile.is_zipfile(path):
            raise ModelLoadError(f"{path}: not a Keras archive (a .keras file is a zip)")
        check_archive(path)
    elif ext in (".h5", ".hdf5"):
        import h5py

        try:
            with h5py.File(path, "r") as f:
                if "model_config" not in f.attrs:
                    raise ModelLoadError(f"{path}: HDF5 file without a model config (weights only?)")
        except ModelLoadError:
            raise
        except Exception as err:
            raise ModelLoadError(f"{path}: not a readable HDF5 model ({_first_line(err)})") from None
    else:
        raise ModelLoadError(f"{path}: unknown model format {ext!r} (expected .keras or .h5)")
    # The legacy .h5 format stores a subclassed model's plain class name
    # (a family's `keras.Model` class, `ModelFamily.model_class`), not the registered "keras_skim>..." one.
    custom_objects = {
        name.split(">", 1)[1]: obj
        for name, obj in keras.saving.get_custom_objects().items()
        if name.startswith("keras_skim>")
    }
    if ext in (".h5", ".hdf5"):
        # Keras writes the mask of Embedding(mask_zero=True) into an .h5
        # model config as a bare "NotEqual" node, which its own .h5 loader
        # then does not know; it is Keras' own operation (a private API: keras_skim/private_apis.py).
        from keras_skim.private_apis import not_equal_operation

        custom_objects["NotEqual"] = not_equal_operation()
    try:
        return keras.saving.load_model(path, compile=compile, safe_mode=True, custom_objects=custom_objects)
    except Exception as err:
        message = _first_line(err)
        if "Could not locate class" in message or "Unknown layer" in message:
            raise ModelLoadError(f"{path}: uses a layer keras-skim does not know ({message})") from None
        raise ModelLoadError(f"{path}: could not load the model ({message})") from None


def _first_line(err):
    text = str(err).strip() or type(err).__name__
    return text.splitlines()[0][:300]
