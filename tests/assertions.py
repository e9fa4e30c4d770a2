"""Assertions shared by the test packages."""


def one_line(err):
    """The error text, asserted to be one non-empty line (the CLI's promise
    for bad input); returned stripped."""
    err = err.strip()
    assert err and err.count("\n") == 0, err
    return err
