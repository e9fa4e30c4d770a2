"""Checks of training settings, shared by the families' config dataclasses
(`__post_init__`): one line per refused value, as a `ValueError`."""


def check_integer(name, value, minimum, optional=False):
    """Refuses anything but an integer >= `minimum` (None too when `optional`)."""
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        expected = f"{'None or ' if optional else ''}an integer >= {minimum}"
        raise ValueError(f"{name} must be {expected}; got {value!r}")


def check_number(name, value, optional=False):
    """Refuses anything but a real number >= 0 (NaN and booleans included; None too when `optional`)."""
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise ValueError(f"{name} must be {'None or ' if optional else ''}a number >= 0; got {value!r}")


def check_flag(name, value):
    """Refuses anything but True or False."""
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False; got {value!r}")
