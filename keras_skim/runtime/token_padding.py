"""Runs texts of many lengths at a few input lengths: the token ids are padded
with the padding id to a power of two, so that most calls leave the model's
input shape as it was. A new input shape costs a LiteRT input resize, new
tensor buffers and new output views, about half the per-call fixed cost of a
custom-op export (benchmarks/runtime_fixed_cost.py); a padding step costs
the op a comparison (it skips id 0, keeping the state, as Keras' mask_zero
does), so the outputs are those of the unpadded text, cut back to its length.

Used for exports run through keras-skim's LiteRT C API runner
(`keras_skim.runtime.litert_runner`) whose metadata names id 0 as padding.
Imports neither TensorFlow nor Keras."""

import numpy as np

from keras_skim import contracts

# The shortest input length: short texts share one shape.
MIN_LENGTH = 16
# An input of `length` tokens stays as long as it is at most SLACK times the
# text's own power of two: a short text after a long one is padded rather
# than resized (at most SLACK x 2 - 1 padding steps per token, each a
# comparison in the op, far cheaper than a resize:
# benchmarks/results/runtime_fixed_cost.md).
SLACK = 8


def padded_length(length, current):
    """The input length at which to run a text of `length` tokens, when the
    input has `current` tokens now (None: never set)."""
    bucket = max(MIN_LENGTH, 1 << max(length - 1, 0).bit_length())
    if current is not None and length <= current <= SLACK * bucket:
        return current
    return bucket


class TokenPadding:
    """Picks the input length of each text (`length_for`, the rule of
    `padded_length`, kept from text to text) and, for callers that pad in
    Python (`pad`; the LiteRT C API runner writes the padded ids itself:
    `litert_runner.TokenCall`), pads [1, T] token ids into a buffer it keeps.

    Args:
        per_token: the names of the outputs with one value per token (cut
            back to the text's length after a run).
    """

    def __init__(self, per_token):
        self.per_token = list(per_token)
        self.length = 0  # the input length the model has now (0: none yet)
        self.low = 0  # texts of low < T <= length keep it (padded_length, in one comparison)
        self._buffer = self._flat = None
        self._filled = 0  # tokens written into the buffer by the last call (beyond: padding)

    def length_for(self, count):
        """The input length to run a text of `count` tokens at (`padded_length`
        of the length kept so far), kept for the next text."""
        if not self.low < count <= self.length:  # the per-call path is this comparison
            self._resize(padded_length(count, self.length or None))
        return self.length

    def pad(self, ids):
        """ids [1, T] int32 -> the same ids padded to `length_for(T)` (a
        buffer that the next call overwrites)."""
        count = ids.shape[-1]
        length = self.length_for(count)
        if self._buffer is None or self._buffer.shape[1] != length:
            self._buffer = np.full((1, length), contracts.PADDING_ID, np.int32)
            self._flat, self._filled = self._buffer.reshape(-1), 0
        flat = self._flat
        flat[:count] = ids[0]
        if self._filled > count:
            flat[count : self._filled] = contracts.PADDING_ID
        self._filled = count
        return self._buffer

    def _resize(self, length):
        self.length = length
        # `length` is a power of two: it is kept while the text's own power of two is >= length / SLACK.
        smallest = length // SLACK
        self.low = smallest // 2 if smallest > MIN_LENGTH else 0


def padding_for(signature, metadata):
    """A `TokenPadding` for a LiteRT C API signature runner of an export whose
    metadata says that id 0 is padding; None otherwise (the builtin
    interpreter: there a padding step costs as much as a token)."""
    from keras_skim.runtime.litert_runner import SignatureRunner

    if not isinstance(signature, SignatureRunner) or getattr(metadata, "padding_id", None) != contracts.PADDING_ID:
        return None
    # The metadata's shapes mark the token axis with -1 (LiteRT reports the length the export was traced at).
    outputs = getattr(metadata, "outputs", None) or {}
    per_token = [name for name, info in outputs.items() if info.shape and info.shape[-1] == -1]
    return TokenPadding(per_token or [contracts.OUTPUT_READ_MASK])
