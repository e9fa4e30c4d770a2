"""The one error type the CLI turns into a one-line message and exit code 2."""


class CliError(Exception):
    """A user-facing error: bad argument, missing file, refused overwrite."""
