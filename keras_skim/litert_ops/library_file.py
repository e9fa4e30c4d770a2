"""The op library's file, checked against its build manifest before anything
loads it: `library_path()` is what `c_interface.load_library` opens.

The manifest (`libkeras_skim_ops.json`, written by `native_build`) holds the
library's size and sha256, the hash of the C++ sources it was built from and
the C API version; a truncated, replaced or stale file is one line, never a
crash in dlopen. Standard library only.
"""

import json
import os
import platform
import threading

from keras_skim.litert_ops.native_build import (
    BUILD_SYSTEMS,
    LIBRARY_NAME,
    MANIFEST_NAME,
    file_sha256,
    source_files,
    sources_sha256,
)

# The C interface this package speaks (KERAS_SKIM_C_API_VERSION of runner/keras_skim_c.h).
C_API_VERSION = 2
# A folder holding another build of the library and its manifest (default: this package's folder).
OPS_DIR_ENV = "KERAS_SKIM_OPS_DIR"

_HERE = os.path.dirname(os.path.abspath(__file__))
_LOCK = threading.Lock()
_VERIFIED = None  # the library path once its manifest check passed


def _not_built_message(folder):
    system = f"{platform.system()} {platform.machine()}"
    if platform.system() not in BUILD_SYSTEMS:
        return (
            f"keras-skim's custom-op library is not built for {system} (built on Linux x86-64 and aarch64 only); "
            "export with --backend builtin, which any LiteRT interpreter runs"
        )
    return (
        f"keras-skim's custom-op library is not part of this install ({folder} has no {LIBRARY_NAME}): it is built "
        "with the package; reinstall keras-skim with a C++17 compiler present (pip install -e . in a checkout), "
        "or export with --backend builtin"
    )


def read_manifest(folder=_HERE):
    """The build manifest of the library in `folder`.

    Raises:
        RuntimeError: one line: no library built here, or an unreadable manifest.
    """
    path = os.path.join(folder, MANIFEST_NAME)
    if not os.path.isfile(path):
        raise RuntimeError(_not_built_message(folder))
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError) as err:
        raise RuntimeError(f"{path}: not a keras-skim build manifest ({err}); reinstall keras-skim") from None
    keys = ("bytes", "sha256", "sources_sha256", "c_api_version")
    missing = [k for k in keys if k not in manifest] if isinstance(manifest, dict) else list(keys)
    if missing:
        raise RuntimeError(f"{path}: not a keras-skim build manifest (no {', '.join(missing)}); reinstall keras-skim")
    return manifest


def verify_library(folder=_HERE):
    """Path of the library in `folder` after checking it against its manifest,
    without loading it: size and sha256 (a truncated or replaced file), the C
    API version it was built for, and, where the C++ sources lie next to it
    (a checkout), that it was built from them.

    Raises:
        RuntimeError: one line saying what is wrong and what to do.
    """
    manifest = read_manifest(folder)
    path = os.path.join(folder, LIBRARY_NAME)
    rebuild = "rebuild it: pip install -e . (or python keras_skim/litert_ops/native_build.py) in a checkout"
    if not os.path.isfile(path):
        raise RuntimeError(f"{path}: missing, but {MANIFEST_NAME} lists it; reinstall keras-skim")
    size = os.path.getsize(path)
    if size != manifest["bytes"]:
        raise RuntimeError(f"{path}: {size} bytes, its build manifest says {manifest['bytes']}; reinstall keras-skim")
    if file_sha256(path) != manifest["sha256"]:
        raise RuntimeError(f"{path}: its sha256 differs from its build manifest's; reinstall keras-skim")
    if manifest["c_api_version"] != C_API_VERSION:
        raise RuntimeError(
            f"{path}: built for C API version {manifest['c_api_version']}, this keras-skim speaks {C_API_VERSION}; "
            f"{rebuild}"
        )
    if (
        any(name.endswith(".cc") for name in source_files(folder))
        and sources_sha256(folder) != manifest["sources_sha256"]
    ):
        raise RuntimeError(f"{path} was built from other C++ sources than those next to it; {rebuild}")
    return path


def library_path():
    """Path of the packaged `libkeras_skim_ops.so` (or the one in
    `$KERAS_SKIM_OPS_DIR`), verified (`verify_library`).

    Raises:
        RuntimeError: one line: not built for this platform or install, damaged, or stale.
    """
    global _VERIFIED
    with _LOCK:
        if _VERIFIED is None:
            _VERIFIED = verify_library(os.environ.get(OPS_DIR_ENV) or _HERE)
        return _VERIFIED
