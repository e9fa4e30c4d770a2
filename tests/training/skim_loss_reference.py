"""The gradients of one real `model.fit` step next to the gradients of the
paper's loss written out by hand, for models with skim cells.

`fit_gradients` runs one `fit` step with an optimizer that writes each
gradient into its variable, so the weights after the step are the gradients
Keras applied (after loss scaling and unscaling, sample weights and
cross-replica reduction). `reference_gradients` re-runs the same layers, with
the same Gumbel noise, in a `GradientTape` on

    task loss (with the sample weights) + sum over skim cells of
    gamma * mean over the batch of (mean over the sequence's real tokens of
    -log p_skim)                                   (Seo et al. 2018, eq. 8)

where -log p_skim is recomputed outside the recurrent loop from each cell's
input sequence and output sequence. Used by
tests/training/test_skim_loss_settings.py and benchmarks/skim_loss_share.py.
"""

import keras
import numpy as np
import tensorflow as tf
from keras import ops

from keras_skim import SkimGRUCell, SkimLSTMCell

STEPS = 8
VOCAB = 20
FEATURES = 4
UNITS = 6
SMALL_UNITS = 2
ARCHITECTURES = ("last", "sequence", "first", "bidirectional", "stacked", "stacked_cells")


class GradientRecorder(keras.optimizers.SGD):
    """An optimizer whose step writes each gradient into its variable."""

    def update_step(self, gradient, variable, learning_rate):
        variable.assign(ops.cast(gradient, variable.dtype))


def toy_batch(batch=8, seed=0, empty_row=False):
    """Token ids with right padding, left padding and a hole, labels (B, 1).

    Rows 0 and 3 are full length, so the last time step is real for some
    sequences and padding for others. `empty_row` makes row 4 all padding.
    """
    rs = np.random.RandomState(seed)
    ids = rs.randint(1, VOCAB, (batch, STEPS)).astype("int32")
    lengths = [8, 5, 3, 8, 1, 6, 7, 2]
    for i in range(batch):
        ids[i, lengths[i % len(lengths)] :] = 0
    ids[1, :3] = 0  # left padding: [0 0 0 a b 0 0 0]
    ids[5, 2] = 0  # a hole: [a b 0 c d e 0 0]
    if empty_row:
        ids[4] = 0
    labels = rs.randint(0, 2, (batch, 1)).astype("float32")
    return ids, labels


def build(architecture, gamma, mask_zero=True, seed=3):
    """A small classifier whose skim layers are used as `architecture` says.

    Returns (model, parts): `parts` holds the layers that
    `reference_gradients` re-runs.
    """
    ids = keras.Input((STEPS,), dtype="int32")
    embedding = keras.layers.Embedding(VOCAB, FEATURES, mask_zero=mask_zero)
    x = embedding(ids)
    first = SkimLSTMCell(UNITS, SMALL_UNITS, gamma=gamma, seed=seed)
    second = SkimGRUCell(UNITS, SMALL_UNITS, gamma=gamma, seed=seed + 1)
    parts = {"embedding": embedding, "mask_zero": mask_zero}
    if architecture == "last":
        h = keras.layers.RNN(first)(x)
        parts["cells"] = [first]
    elif architecture == "sequence":
        pool = keras.layers.GlobalAveragePooling1D()
        h = pool(keras.layers.RNN(first, return_sequences=True)(x))
        parts.update(cells=[first], pool=pool)
    elif architecture == "first":
        h = keras.layers.RNN(first, return_sequences=True)(x)[:, 0]
        parts["cells"] = [first]
    elif architecture == "bidirectional":
        bidirectional = keras.layers.Bidirectional(keras.layers.RNN(first))
        h = bidirectional(x)
        parts["cells"] = [bidirectional.forward_layer.cell, bidirectional.backward_layer.cell]
    elif architecture == "stacked":
        h = keras.layers.RNN(second)(keras.layers.RNN(first, return_sequences=True)(x))
        parts["cells"] = [first, second]
    elif architecture == "stacked_cells":
        h = keras.layers.RNN([first, second])(x)
        parts["cells"] = [first, second]
    else:
        raise ValueError(f"unknown architecture {architecture!r}")
    dense = keras.layers.Dense(1)
    parts["dense"] = dense
    model = keras.Model(ids, dense(h))
    rs = np.random.RandomState(5)
    for v in model.trainable_weights:
        v.assign(rs.normal(0.0, 0.5, v.shape).astype(v.dtype))
    return model, parts


def snapshot(model, parts):
    """The weights and each cell's noise state, to replay the same step."""
    return (
        [np.asarray(v) for v in model.trainable_weights],
        [np.asarray(c.seed_generator.state) for c in parts["cells"]],
    )


def restore(model, parts, saved):
    weights, seeds = saved
    for v, w in zip(model.trainable_weights, weights):
        v.assign(w)
    for c, s in zip(parts["cells"], seeds):
        c.seed_generator.state.assign(s)


def fit_gradients(model, ids, labels, sample_weight=None, loss_scale=None):
    """The gradients of one `model.fit` step, one array per trainable weight."""
    optimizer = GradientRecorder(learning_rate=1.0)
    if loss_scale is not None:
        optimizer = keras.optimizers.LossScaleOptimizer(optimizer, initial_scale=loss_scale)
    model.compile(optimizer, keras.losses.BinaryCrossentropy(from_logits=True))
    history = model.fit(
        ids,
        labels,
        sample_weight=sample_weight,
        batch_size=len(ids),
        epochs=1,
        shuffle=False,
        verbose=0,
    )
    return [np.asarray(v, dtype="float64") for v in model.trainable_weights], history.history


def explicit_skim_loss(cell, gamma, x, mask, sequence, go_backwards=False):
    """gamma * batch mean of each sequence's mean of -log p_skim over its real
    tokens, from the cell's inputs `x` and its output `sequence` (in the order
    the cell saw them); a sequence without real tokens adds 0."""
    x = tf.cast(x, "float32")
    sequence = tf.cast(sequence, "float32")
    m = tf.cast(mask, "float32")
    if go_backwards:
        x, m = x[:, ::-1], m[:, ::-1]
    h_prev = tf.concat([tf.zeros_like(sequence[:, :1]), sequence[:, :-1]], axis=1)
    logits = (
        tf.einsum("btf,fk->btk", x, tf.cast(cell.gate_kernel, "float32"))
        + tf.einsum("btu,uk->btk", h_prev, tf.cast(cell.gate_recurrent_kernel, "float32"))
        + tf.cast(cell.gate_bias, "float32")
    )
    neg_log_p_skim = -tf.nn.log_softmax(logits, axis=-1)[..., 1]
    per_sequence = tf.math.divide_no_nan(tf.reduce_sum(neg_log_p_skim * m, axis=1), tf.reduce_sum(m, axis=1))
    return gamma * tf.reduce_mean(per_sequence)


def reference_gradients(model, parts, architecture, ids, labels, gamma, sample_weight=None):
    """Gradients of the task loss + the explicit skim loss of every cell."""
    cells = parts["cells"]
    saved_gammas = [c.gamma for c in cells]
    for c in cells:
        # The twins below share the cells: no skim term of their own.
        c.gamma = 0.0
    if architecture == "stacked_cells":
        # Before its loop, keras.layers.RNN calls each cell of a
        # StackedRNNCells once more (to build its dropout masks), which draws
        # one Gumbel sample per cell; the two layers below do not.
        for c in cells:
            c.seed_generator.next()
            # The layer runs a StackedRNNCells step by step (the fused
            # training loop takes one skim cell), drawing Gumbel noise per
            # step: the twins must draw theirs the same way.
            c.fused_loop = False
    try:
        with tf.GradientTape() as tape:
            logits, skim = _reference_forward(parts, architecture, ids, gamma)
            task = keras.losses.BinaryCrossentropy(from_logits=True)(
                labels, tf.cast(logits, "float32"), sample_weight=sample_weight
            )
            loss = task + skim
        grads = tape.gradient(loss, model.trainable_weights)
    finally:
        for c, g in zip(cells, saved_gammas):
            c.gamma = g
            c.__dict__.pop("fused_loop", None)
    # The embedding's gradient comes as IndexedSlices.
    grads = [tf.convert_to_tensor(g) for g in grads]
    return [np.asarray(g, dtype="float64") for g in grads], float(task), float(skim)


def _reference_forward(parts, architecture, ids, gamma):
    x = parts["embedding"](ids)
    mask = tf.not_equal(ids, 0) if parts["mask_zero"] else tf.ones(ids.shape, tf.bool)
    terms = []

    def run(cell, inputs, go_backwards=False):
        twin = keras.layers.RNN(cell, return_sequences=True, go_backwards=go_backwards)
        sequence = twin(inputs, mask=mask, training=True)
        terms.append(explicit_skim_loss(cell, gamma, inputs, mask, sequence, go_backwards))
        return sequence

    cells = parts["cells"]
    if architecture == "last":
        h = run(cells[0], x)[:, -1]
    elif architecture == "sequence":
        h = parts["pool"](run(cells[0], x), mask=mask)
    elif architecture == "first":
        h = run(cells[0], x)[:, 0]
    elif architecture == "bidirectional":
        h = tf.concat([run(cells[0], x)[:, -1], run(cells[1], x, go_backwards=True)[:, -1]], -1)
    else:  # stacked layers, or one RNN over StackedRNNCells: the same computation
        h = run(cells[1], run(cells[0], x))[:, -1]
    return parts["dense"](h), tf.add_n(terms)


def gate_bias_indices(model):
    return [i for i, v in enumerate(model.trainable_weights) if v.path.endswith("gate_bias")]


def relative_error(got, want):
    """max over weights of |got - want| / |want| (Frobenius norms)."""
    return max(float(np.linalg.norm(g - w) / max(np.linalg.norm(w), 1e-30)) for g, w in zip(got, want))
