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
import struct
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
C_API_VERSION = 3
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
    problem = elf_problem(path)
    if problem:  # a manifest rewritten to match a damaged file: dlopen would map past its end (SIGBUS)
        raise RuntimeError(f"{path}: not a whole shared library ({problem}); reinstall keras-skim")
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


# By EI_CLASS (1: 32-bit, 2: 64-bit): the ELF header after e_ident, a
# program header and a section header, with the positions of their (type,
# file offset, size in the file) fields.
_ELF = {
    1: ("HHIIIIIHHHHHH", "IIIIIIII", (0, 1, 4), "IIIIIIIIII", (1, 4, 5)),
    2: ("HHIQQQIHHHHHH", "IIQQQQQQ", (0, 2, 5), "IIQQQQIIQQ", (1, 4, 5)),
}
_ET_DYN, _SHT_NOBITS = 3, 8


def elf_problem(path):
    """What makes `path` not a whole ELF shared library, or None.

    Checks the ELF header and that every segment's and section's bytes lie
    inside the file: a truncated library passes dlopen's first checks and
    faults (SIGBUS) when a mapped page past the end is touched. Reads the
    headers only.
    """
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        ident = f.read(16)
        if len(ident) < 16 or ident[:4] != b"\x7fELF" or ident[4] not in _ELF or ident[5] not in (1, 2):
            return "no ELF header"
        order = "<" if ident[5] == 1 else ">"
        header, program, program_fields, section, section_fields = _ELF[ident[4]]
        fields = _unpack(f, order + header)
        if fields is None:
            return "a cut ELF header"
        if fields[0] != _ET_DYN:
            return "not a shared object"
        phoff, shoff, phentsize, phnum, shentsize, shnum = fields[4], fields[5], *fields[8:12]
        return _table_problem(f, size, (phoff, phnum, phentsize), order + program, program_fields, "segment") or (
            _table_problem(f, size, (shoff, shnum, shentsize), order + section, section_fields, "section")
        )


def _unpack(f, layout):
    data = f.read(struct.calcsize(layout))
    return struct.unpack(layout, data) if len(data) == struct.calcsize(layout) else None


def _table_problem(f, size, table, layout, positions, what):
    """The first entry of an ELF header table whose bytes lie past the end of the file."""
    offset, count, entry = table
    if count == 0:
        return None
    if entry < struct.calcsize(layout) or offset + count * entry > size:
        return f"its {what} headers lie past the end of the file"
    kind_at, start_at, length_at = positions
    for index in range(count):
        f.seek(offset + index * entry)
        values = _unpack(f, layout)
        if what == "section" and values[kind_at] == _SHT_NOBITS:
            continue  # .bss: takes no bytes in the file
        if values[start_at] + values[length_at] > size:
            return f"{what} {index} ends at byte {values[start_at] + values[length_at]} of {size}"
    return None


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
