"""Where fetched and parsed data live on disk, and how they are kept whole.

Every cached artefact ``X`` has a companion ``X.sha256`` holding its sha256.
Reuse checks it, so a truncated download or a file edited by hand is fetched
again instead of silently giving wrong data. Writes go to a temporary file in
the same folder and are moved into place with ``os.replace``, which is atomic
on one file system, so an interrupted run never leaves a half-written file
under the final name.
"""

import contextlib
import hashlib
import os
import pathlib
import tempfile

from keras_skim.datasets.errors import CacheError

CACHE_ENV = "KERAS_SKIM_CACHE"
CHECKSUM_SUFFIX = ".sha256"
_CHUNK = 1 << 20


def cache_root(cache_dir=None):
    """Resolves the cache folder and creates it.

    Args:
        cache_dir: Explicit folder; wins over everything else when given.

    Returns:
        A ``pathlib.Path``: ``cache_dir``, else ``$KERAS_SKIM_CACHE``, else
        ``$XDG_CACHE_HOME/keras_skim``, else ``~/.cache/keras_skim``.

    Raises:
        CacheError: The folder cannot be created (one line naming it).
    """
    if cache_dir is not None:
        root = pathlib.Path(cache_dir)
    elif os.environ.get(CACHE_ENV):
        root = pathlib.Path(os.environ[CACHE_ENV])
    elif os.environ.get("XDG_CACHE_HOME"):
        root = pathlib.Path(os.environ["XDG_CACHE_HOME"]) / "keras_skim"
    else:
        root = pathlib.Path.home() / ".cache" / "keras_skim"
    root = root.expanduser()
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise _cache_error(root, "create the cache folder", err) from None
    return root


def _cache_error(path, doing, err):
    return CacheError(
        f"{path}: cannot {doing} ({err.strerror or err}); expected a writable cache folder "
        f"(set {CACHE_ENV} to one with free space)"
    )


def sha256_file(path):
    """Computes the sha256 of a file.

    Args:
        path: File to hash.

    Returns:
        The hex digest.
    """
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def checksum_path(path):
    """Returns the path of the checksum file that goes with ``path``."""
    path = pathlib.Path(path)
    return path.with_name(path.name + CHECKSUM_SUFFIX)


def write_checksum(path):
    """Writes ``path.sha256`` in the ``sha256sum`` format.

    Args:
        path: The artefact, already in its final place.

    Returns:
        The hex digest written.
    """
    path = pathlib.Path(path)
    digest = sha256_file(path)
    atomic_write_bytes(checksum_path(path), f"{digest}  {path.name}\n".encode())
    return digest


def verify_checksum(path):
    """Tells whether a cached artefact is present and matches its checksum.

    Args:
        path: The artefact.

    Returns:
        True only if both the artefact and its checksum file exist and the
        digest matches; a missing checksum counts as a mismatch, since the
        file may then be a leftover of an older, unchecked layout.
    """
    path = pathlib.Path(path)
    sums = checksum_path(path)
    if not path.is_file() or not sums.is_file():
        return False
    try:
        expected = sums.read_text().split()[0]
    except (OSError, IndexError):
        return False
    return sha256_file(path) == expected


@contextlib.contextmanager
def atomic_output(path):
    """Yields a temporary path to write; moves it onto ``path`` on success.

    The temporary file sits in the destination folder so that ``os.replace``
    stays on one file system and is atomic. On error it is removed.

    Args:
        path: Final destination.

    Yields:
        A ``pathlib.Path`` to write to.
    """
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    os.close(handle)
    tmp = pathlib.Path(tmp_name)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def atomic_write_bytes(path, data):
    """Writes bytes to ``path`` atomically.

    Args:
        path: Destination.
        data: Bytes to write.

    Returns:
        ``path`` as a ``pathlib.Path``.
    """
    with atomic_output(path) as tmp:
        tmp.write_bytes(data)
        # mkstemp creates 0600: give the file what a plain open() would.
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
    return pathlib.Path(path)


def store_artefact(path, data):
    """Writes bytes atomically and then their checksum file.

    The checksum is written last: a crash in between leaves an artefact
    without checksum, which ``verify_checksum`` rejects, so it is rebuilt.

    Args:
        path: Destination.
        data: Bytes to write.

    Returns:
        ``path`` as a ``pathlib.Path``.

    Raises:
        CacheError: The write failed (nothing half-written is left).
    """
    try:
        atomic_write_bytes(path, data)
        write_checksum(path)
    except OSError as err:
        raise _cache_error(path, "write to the cache", err) from None
    return pathlib.Path(path)


def move_into_cache(src, path):
    """Moves a finished file into the cache atomically and checksums it.

    Args:
        src: A finished file, ideally on the same file system as ``path``.
        path: Destination.

    Returns:
        ``path`` as a ``pathlib.Path``.
    """
    path = pathlib.Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.replace(src, path)
        except OSError:
            # Across file systems os.replace fails; copy into a temp file next to
            # the destination instead, which keeps the final step atomic.
            with atomic_output(path) as tmp, open(src, "rb") as source, open(tmp, "wb") as target:
                for block in iter(lambda: source.read(_CHUNK), b""):
                    target.write(block)
        write_checksum(path)
    except OSError as err:
        raise _cache_error(path, "write to the cache", err) from None
    return path


def read_verified(path):
    """Reads a cached artefact if its checksum matches.

    Args:
        path: The artefact.

    Returns:
        Its bytes, or None when missing or corrupt (the caller re-fetches).
    """
    if not verify_checksum(path):
        return None
    return pathlib.Path(path).read_bytes()
