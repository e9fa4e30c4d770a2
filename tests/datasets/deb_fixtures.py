"""Small real-looking Debian packages for the data tests: a .deb (an ar archive holding data.tar.xz) and R's
lazy-load database, laid out as the real packages lay them out (see shared/DATA_SOURCES.md)."""

import importlib.util
import io
import pathlib
import struct
import sys
import tarfile
import zlib

import numpy as np


def ar(members):
    """An ar archive (a .deb's container) of `members`, (name, bytes) pairs."""
    out = io.BytesIO()
    out.write(b"!<arch>\n")
    for name, data in members:
        header = f"{name + '/':<16}{0:<12}{0:<6}{0:<6}{100644:<8}{len(data):<10}`\n"
        out.write(header.encode("ascii") + data + (b"\n" if len(data) % 2 else b""))
    return out.getvalue()


def deb(tmp_path, files):
    """A .deb whose data.tar.xz installs `files` ({path: bytes}), named as dpkg-deb names them (./usr/...)."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:xz") as tar:
        for name, content in files.items():
            info = tarfile.TarInfo("./" + name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    path = tmp_path / "r-cran-test_1.0.0-1_all.deb"
    # An odd-sized control member first, so that reading past it must skip its padding byte.
    path.write_bytes(ar([("debian-binary", b"2.0\n"), ("control.tar.xz", b"x" * 7), ("data.tar.xz", data.getvalue())]))
    return path


def lazyload(rdata, tmp_path, objects):
    """(.rdx bytes, .rdb bytes) of R's lazy-load database of `objects` ({name: NumPy array}), as R writes it."""
    database, variables = b"", {}
    for name, value in objects.items():
        serialised = rdata.unparser.unparse_data(rdata.conversion.convert_python_to_r_data(value), file_type="rds")
        entry = struct.pack(">I", len(serialised)) + zlib.compress(serialised)
        variables[name] = np.array([len(database), len(entry)], dtype=np.int32)
        database += entry
    index = tmp_path / "Rdata.rdx"
    rdata.write_rds(index, {"variables": variables, "references": {}, "compressed": np.array([True])})
    return index.read_bytes(), database


def build_cloze_set():
    """The module of ``benchmarks/build_cloze_set.py`` (a script, not a package module)."""
    path = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "build_cloze_set.py"
    spec = importlib.util.spec_from_file_location("build_cloze_set", path)
    builder = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("build_cloze_set", builder)
    spec.loader.exec_module(builder)
    return builder
