"""keras-skim's version: `keras_skim.__version__`, the package metadata
(pyproject.toml reads it), `keras-skim --version`, and the `written_by`
record of every export and training run."""

__version__ = "0.1.0"
