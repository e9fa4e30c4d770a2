"""Loading models safely and writing output folders without partial results."""
import contextlib
import os
import shutil
import tempfile
import zipfile


class ModelLoadError(ValueError):
    """A model file that cannot be loaded; the message is one line."""


def load_model(path, compile=False):
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
    ext = os.path.splitext(path)[1].lower()
    if ext == ".keras":
        if not zipfile.is_zipfile(path):
            raise ModelLoadError(f"{path}: not a Keras archive (a .keras file is a zip)")
    elif ext in (".h5", ".hdf5"):
        import h5py

        try:
            with h5py.File(path, "r") as f:
                if "model_config" not in f.attrs:
                    raise ModelLoadError(
                        f"{path}: HDF5 file without a model config (weights only?)"
                    )
        except ModelLoadError:
            raise
        except Exception as err:
            raise ModelLoadError(f"{path}: not a readable HDF5 model ({_first_line(err)})") from None
    else:
        raise ModelLoadError(f"{path}: unknown model format {ext!r} (expected .keras or .h5)")
    # The legacy .h5 format stores a subclassed model's plain class name
    # ("StructuralJumpLSTM"), not the registered "keras_skim>..." one.
    custom_objects = {
        name.split(">", 1)[1]: obj
        for name, obj in keras.saving.get_custom_objects().items()
        if name.startswith("keras_skim>")
    }
    try:
        return keras.saving.load_model(
            path, compile=compile, safe_mode=True, custom_objects=custom_objects
        )
    except Exception as err:
        message = _first_line(err)
        if "Could not locate class" in message or "Unknown layer" in message:
            raise ModelLoadError(
                f"{path}: uses a layer keras-skim does not know ({message})"
            ) from None
        raise ModelLoadError(f"{path}: could not load the model ({message})") from None


def _first_line(err):
    text = str(err).strip() or type(err).__name__
    return text.splitlines()[0][:300]


@contextlib.contextmanager
def staged_output_dir(path, force=False):
    """Yields a temporary folder that replaces `path` only on success.

    Nothing is left behind if the block fails, and an existing `path` is
    replaced only with `force=True`.

    Raises:
        FileExistsError: `path` exists and `force` is False.
    """
    path = os.path.abspath(os.fspath(path))
    if os.path.exists(path) and not force:
        raise FileExistsError(f"{path} already exists (use --force to overwrite it)")
    parent = os.path.dirname(path)
    os.makedirs(parent, exist_ok=True)
    stage = tempfile.mkdtemp(prefix=".keras-skim-", dir=parent)
    try:
        yield stage
        if os.path.exists(path):
            old = tempfile.mkdtemp(prefix=".keras-skim-old-", dir=parent)
            os.replace(path, os.path.join(old, "x"))
            os.replace(stage, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(stage, path)
    finally:
        if os.path.exists(stage):
            shutil.rmtree(stage, ignore_errors=True)
