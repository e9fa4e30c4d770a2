"""The error the exporter raises for a model it cannot (or may not) export."""


class ExportError(ValueError):
    """A model or option the exporter refuses; the message is one line."""
