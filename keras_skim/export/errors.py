"""The error the exporter raises for a model it cannot (or may not) export,
and the one phrase of its refusals that says what it takes."""

WHAT_EXPORT_TAKES = (
    "export takes token ids (an integer Input -> Embedding -> RNN(cell) -> Dense) or float sequences "
    "(Input((T, F)) -> RNN(cell) -> Dense)"
)


class ExportError(ValueError):
    """A model or option the exporter refuses; the message is one line."""
