"""What the span readers (`LSTMAttentionQA`, `BiDAF`) share: their inputs,
their answer head's masking and their per-layer reading report."""

import keras
from keras import ops

from keras_skim.models.span_qa.bidirectional_reader import READER_CELLS, BidirectionalReader
from keras_skim.models.span_qa.span_qa_ops import masked_logits


def reader_cells(cells, layers):
    """The `cells` argument as a tuple of `layers` `--cell` values (one value: every layer)."""
    cells = (cells,) * layers if isinstance(cells, str) else tuple(cells)
    if len(cells) != layers:
        raise ValueError(f"cells must name {layers} reading layers (or one for all); got {list(cells)}")
    for cell in cells:
        if cell not in READER_CELLS:
            raise ValueError(f"each cell must be one of {', '.join(READER_CELLS)}; got {cell!r}")
    return cells


def build_readers(cells, units, small_units, gamma, threshold, seed, names):
    """One `BidirectionalReader` per cell, named `names`, seeds 2 apart (one per direction)."""
    return [
        BidirectionalReader(
            cell, units, small_units, gamma, threshold, None if seed is None else seed + 2 * index, name=name
        )
        for index, (cell, name) in enumerate(zip(cells, names))
    ]


def word_embedding(vocabulary_size, embedding_dim, train_embedding):
    """The word embedding of both inputs, index 0 = padding (the models pass
    their masks explicitly, from the ids, so the embedding attaches none)."""
    return keras.layers.Embedding(vocabulary_size, embedding_dim, trainable=train_embedding, name="embedding")


def build_reader(model, input_shape):
    """Builds a span reader's weights by running it once on a padding-free
    batch of one example of one context and one question token (a `.keras`
    file is loaded into a model built this way). No weight's shape depends on
    the lengths, and the read is eager, a Python step per token: building at
    `input_shape`'s lengths made every load cost a whole read of that length."""
    del input_shape  # the lengths; the weights do not depend on them
    model.read((ops.ones((1, 1), "int32"), ops.ones((1, 1), "int32")))


def split_inputs(inputs):
    """`(context ids, question ids, context mask, question mask)` of the model's
    inputs: a `(context, question)` pair or a dict with those keys."""
    if isinstance(inputs, dict):
        context, question = inputs["context"], inputs["question"]
    else:
        context, question = inputs
    context, question = ops.cast(context, "int32"), ops.cast(question, "int32")
    return context, question, ops.not_equal(context, 0), ops.not_equal(question, 0)


def span_logits(dense, features, context_mask):
    """`dense`'s one logit per context position, padding at `PADDING_LOGIT`: `(B, T)`."""
    return masked_logits(dense(features)[..., 0], context_mask)


def skim_rates(reader_names, counts):
    """The reading report of summed counts: {reader: {"forward"/"backward":
    {"tokens", "skimmed", "skim_rate"}, "skim_rate"}}; `counts` is a list of
    `(2, 2)` arrays, one per reader (`BidirectionalReader.read`, summed over
    the examples)."""
    report = {}
    for name, (forward, backward) in zip(reader_names, counts):
        row = {}
        for direction, (tokens, skimmed) in (("forward", forward), ("backward", backward)):
            row[direction] = {"tokens": int(tokens), "skimmed": int(skimmed), "skim_rate": _rate(skimmed, tokens)}
        row["skim_rate"] = _rate(forward[1] + backward[1], forward[0] + backward[0])
        report[name] = row
    return report


def _rate(skimmed, tokens):
    return float(skimmed) / float(tokens) if tokens else 0.0


def compile_span_reader(model, learning_rate=1e-3):
    """Adam on the sum of the two negative log probabilities (one sparse
    categorical cross-entropy per output, on logits; Keras sums them), with
    the start and end accuracies as metrics."""
    model.compile(
        optimizer=keras.optimizers.Adam(learning_rate),
        loss=[keras.losses.SparseCategoricalCrossentropy(from_logits=True)] * 2,
        metrics=[[keras.metrics.SparseCategoricalAccuracy(name="accuracy")]] * 2,
    )
