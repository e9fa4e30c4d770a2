"""The native build of keras-skim; the metadata is in pyproject.toml.

`build_ext` compiles keras_skim/litert_ops/{kernels,litert,runner}/*.cc into
`keras_skim/litert_ops/libkeras_skim_ops.so` (with its manifest,
`libkeras_skim_ops.json`) through keras_skim/litert_ops/native_build.py:
into the build tree for `pip install .` / `pip wheel .` (the wheel is then
platform-specific: it carries a Linux shared library), into the source tree
for `pip install -e .` and `python setup.py build_ext --inplace`. The runtime
loads that file and never calls a compiler.

A release build (export/build_wheels.py) builds the library itself, for
x86-64 or, cross-compiled, aarch64, and names its folder in
`KERAS_SKIM_PREBUILT_LIBRARY`: `build_ext` then copies that library and its
manifest (checked against these sources) instead of compiling, and the wheel
is tagged for the manifest's machine.

Where the library cannot be built (not Linux, or no C++ compiler), the
package still installs, says why in one warning, and `--backend custom`
exports and their runtime say so in one line; a compiler that fails is an error.
"""

import importlib.util
import json
import os
import platform
import shutil
import sys

from setuptools import Distribution, setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
OPS_DIR = os.path.join(HERE, "keras_skim", "litert_ops")


def _native_build():
    # Loaded by path: keras_skim's own imports need its dependencies, which a
    # build environment does not have.
    spec = importlib.util.spec_from_file_location("keras_skim_native_build", os.path.join(OPS_DIR, "native_build.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _prebuilt():
    """The folder and manifest of `KERAS_SKIM_PREBUILT_LIBRARY`, or None."""
    folder = os.environ.get("KERAS_SKIM_PREBUILT_LIBRARY")
    if not folder:
        return None
    native = _native_build()
    with open(os.path.join(folder, native.MANIFEST_NAME), encoding="utf-8") as f:
        manifest = json.load(f)
    if manifest["sources_sha256"] != native.sources_sha256(OPS_DIR):
        raise SystemExit(f"keras-skim: {folder}: a library built from other sources than {OPS_DIR}")
    if native.file_sha256(os.path.join(folder, native.LIBRARY_NAME)) != manifest["sha256"]:
        raise SystemExit(f"keras-skim: {folder}: the library's sha256 differs from its manifest's")
    return folder, manifest


class PlatformDistribution(Distribution):
    """A distribution with native code: wheels get a platform tag, and
    `build` runs `build_ext` although there is no Python extension module."""

    def has_ext_modules(self):
        return True


class BuildOpLibrary(build_ext):
    """Builds the custom-op shared library (a plain C ABI library loaded with
    ctypes, not a Python extension module)."""

    def run(self):
        native = _native_build()
        prebuilt = _prebuilt()
        if prebuilt is not None:
            out_dir = os.path.join(self.build_lib, "keras_skim", "litert_ops")
            os.makedirs(out_dir, exist_ok=True)
            for name in (native.LIBRARY_NAME, native.MANIFEST_NAME):
                shutil.copy2(os.path.join(prebuilt[0], name), os.path.join(out_dir, name))
            print(f"keras-skim: copied the {prebuilt[1]['machine']} library of {prebuilt[0]}")
            return
        in_place = self.inplace or getattr(self, "editable_mode", False)
        out_dir = OPS_DIR if in_place else os.path.join(self.build_lib, "keras_skim", "litert_ops")
        try:
            manifest = native.build_library(out_dir, folder=OPS_DIR)
        except native.BuildError as err:
            if native.compiler() is not None and "build failed" in str(err):
                raise
            print(f"keras-skim: WARNING: custom-op library not built: {err}", file=sys.stderr)
            return
        print(f"keras-skim: built {out_dir}/{native.LIBRARY_NAME} ({manifest['bytes']} bytes)")

    def get_outputs(self):
        native = _native_build()
        folder = os.path.join(self.build_lib, "keras_skim", "litert_ops")
        return [os.path.join(folder, name) for name in (native.LIBRARY_NAME, native.MANIFEST_NAME)]

    def get_output_mapping(self):
        return {}


class PlatformWheel(bdist_wheel):
    """`py3-none-<platform>`: the library is loaded with ctypes and does not
    depend on the Python version, so one wheel serves Python 3.11 to 3.13."""

    def get_tag(self):
        _, _, plat = super().get_tag()
        prebuilt = _prebuilt()
        if prebuilt is not None and prebuilt[1]["machine"] != platform.machine():
            # A cross-compiled library: linux_<its machine>, as a native build there would say.
            plat = f"linux_{prebuilt[1]['machine']}"
        return "py3", "none", plat


setup(
    distclass=PlatformDistribution,
    cmdclass={"build_ext": BuildOpLibrary, "bdist_wheel": PlatformWheel},
)
