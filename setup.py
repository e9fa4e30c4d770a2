"""Installs keras-skim: Keras 3 skim / orthogonal / jump RNN layers and their TFLite tools."""

import pathlib

from setuptools import find_packages, setup

HERE = pathlib.Path(__file__).parent
version = {}
exec((HERE / "keras_skim" / "version.py").read_text(), version)

setup(
    name="keras-skim",
    version=version["__version__"],
    description=(
        "Keras 3 recurrent layers for neural speed reading (Skim-RNN, "
        "scoRNN, Structural-Jump-LSTM) and their TFLite export."
    ),
    long_description=(HERE / "README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    python_requires=">=3.10",
    packages=find_packages(include=["keras_skim", "keras_skim.*"]),
    package_data={"keras_skim.litert_ops": ["*.cc", "*.h", "*.inc"]},
    install_requires=[
        # Exact pin: the exporters import TensorFlow internals that have no public
        # API (tensorflow.compiler.tf2xla.python.xla for the in-place mask update,
        # tensorflow.lite.python.schema_py_generated for the op inventory), and the
        # converter's op versions must be ones the ai-edge-litert range below runs;
        # 2.21.0 is the one version tested with all of them.
        "tensorflow-cpu==2.21.0; platform_machine=='x86_64'",
        "tensorflow==2.21.0; platform_machine!='x86_64'",
        # Exact pin: the cells subclass keras.src's DropoutRNNCell and use its
        # global_state, and model_io names keras.src.ops.numpy.NotEqual for .h5
        # loading; these private modules move between Keras releases.
        "keras==3.15.1",
        # LiteRT C API runtime tested with 2.1.6, 2.2.0 and 2.3.0 (keras_skim.runtime.litert_runner)
        "ai-edge-litert>=2.1.6,<2.4",
        "numpy>=2",
        "h5py",
        "pandas",
        "pyarrow",
        "tqdm",
        "matplotlib",
    ],
    extras_require={
        "test": [
            "pytest>=8",
            "pytest-timeout",
            # tests/notebooks execute notebooks/ with nbclient in a python3 kernel;
            # the versions tested are nbclient 0.11.0, nbformat 5.11.1, ipykernel 7.4.0.
            "nbclient>=0.11,<0.12",
            "nbformat>=5.11,<6",
            "ipykernel>=7.4,<8",
            # tests/test_code_style.py: `ruff check` and `ruff format --check`
            # (configuration in pyproject.toml); a new ruff minor may add rules.
            "ruff>=0.17,<0.18",
        ],
        # `--data tfds:NAME`; it downloads each dataset on first use.
        "tfds": ["tensorflow-datasets>=4.9,<5"],
    },
    entry_points={"console_scripts": ["keras-skim=keras_skim.cli.main:main"]},
    classifiers=[
        "Programming Language :: Python :: 3",
        "Framework :: Keras",
        "License :: OSI Approved :: Apache Software License",
    ],
)
