"""The builtin graph, parity inputs and Keras reference of a model on float
sequences (a `sequence_input.SequencePlan`).

Graph, for one sequence `sequence [1, T, F]` (T fixed when the model's
Input fixes it) and, for a skim cell only, a scalar `threshold`: the cell's
input projections of every step as one FULLY_CONNECTED before the loop,
then a WHILE loop over the steps that runs the same emitter steps as a
token-id export (`graph_builder`): a skim cell's gate, an `IF` holding only
the read step, the skim update in the body; a plain cell's read step on
every step. The outputs are those of every export: `logits`, `read_mask`
(int32 [1, T], 1 read, 0 skimmed; all 1 for a plain cell) and `read_count`.
"""

import numpy as np

from keras_skim import contracts
from keras_skim.export.weights import f32
from keras_skim.model_kinds import skim_gate

# Lengths of the parity inputs of a model whose Input takes any T.
PARITY_LENGTHS = (1, 7, 16, 31, 50, 3)


def _head(tf, plan, x):
    for index, (kernel, bias, activation) in enumerate(plan.head):
        x = tf.matmul(x, tf.constant(f32(kernel))) + tf.constant(f32(bias))
        if index < len(plan.head) - 1 and activation != "linear":
            x = {"relu": tf.nn.relu, "tanh": tf.tanh, "sigmoid": tf.sigmoid}[activation](x)
    return x


def build_module(plan, fold=None):
    """A tf.Module whose `serve(sequence[, threshold])` is the inference graph
    (`fold` has no meaning without an embedding and is ignored)."""
    import tensorflow as tf
    from keras import ops

    from keras_skim.export.graph_builder import threshold_cut

    emitter = plan.emitter
    features = plan.feature_dim
    pre_proj, read_proj = emitter.input_projections()
    init = [tf.constant(s) for s in emitter.initial_state()]
    n_state = len(init)

    def rows(steps, projection):
        """[T, 1, k]: the projection of every step."""
        kernel, bias = projection
        return tf.expand_dims(tf.matmul(steps, tf.constant(f32(kernel))) + tf.constant(f32(bias)), 1)

    inputs = [tf.TensorSpec([1, plan.sequence_length, features], tf.float32, name=contracts.INPUT_SEQUENCE)]
    if emitter.skims:
        inputs.append(tf.TensorSpec([], tf.float32, name=contracts.INPUT_THRESHOLD))

    @tf.function(input_signature=inputs)
    def serve(sequence, threshold=None):
        steps = tf.reshape(sequence, [-1, features])
        length = tf.shape(steps)[0]
        read_rows = rows(steps, read_proj)
        ones = tf.ones_like(steps[:, 0], tf.int32)
        if not emitter.skims:

            def plain_body(t, *state):
                return (t + 1, *emitter.read_step(list(state), tf.gather(read_rows, t), ()))

            loop = tf.while_loop(lambda t, *_: t < length, plain_body, (tf.constant(0), *init))
            state, mask = list(loop[1:]), ones
        else:
            pre_rows = rows(steps, pre_proj)
            cut = threshold_cut(tf, threshold)

            def skim_body(t, *loop):
                state, mask = list(loop[:n_state]), loop[n_state]
                gate, carry = emitter.pre_step(state, tf.gather(pre_rows, t))
                read_row = tf.gather(read_rows, t)  # outside the IF: a branch copies what it captures
                read = gate >= cut
                skimmed = emitter.skim_step(state, carry)
                out = tf.cond(
                    read,
                    lambda: tuple(emitter.read_step(state, read_row, carry)),
                    lambda: tuple(tf.identity(s) for s in skimmed),
                )
                mask = ops.slice_update(mask, tf.reshape(t, [1]), tf.reshape(tf.cast(read, tf.int32), [1]))
                return (t + 1, *out, mask)

            loop = tf.while_loop(lambda t, *_: t < length, skim_body, (tf.constant(0), *init, ones * 0))
            state, mask = list(loop[1 : 1 + n_state]), loop[1 + n_state]
        read_mask = tf.reshape(mask, [1, -1])
        return {
            contracts.OUTPUT_LOGITS: _head(tf, plan, emitter.output(state)),
            contracts.OUTPUT_READ_MASK: read_mask,
            contracts.OUTPUT_READ_COUNT: tf.reduce_sum(read_mask, axis=1),
        }

    module = tf.Module()
    module.serve = serve
    return module


def sample_sequences(plan, count, seed=0):
    """Float32 sequences [T, F] for the parity check: the model's T (or
    several lengths when it takes any), standard normal features."""
    rng = np.random.default_rng(seed)
    lengths = [plan.sequence_length or PARITY_LENGTHS[k % len(PARITY_LENGTHS)] for k in range(count)]
    return [rng.standard_normal((n, plan.feature_dim)).astype(np.float32) for n in lengths]


def keras_reference(model, plan):
    """callable(x [1, T, F], threshold) -> (model output, read decisions [T]):
    the decisions of the model's skim cell (training=False), recorded by
    running the cell over the steps in one graph call (all 1 for a plain cell)."""
    import tensorflow as tf

    gate = skim_gate()
    cells = gate.gated_cells(model)
    cell = cells[0] if cells else None

    @tf.function(
        input_signature=[tf.TensorSpec([1, plan.sequence_length, plan.feature_dim], tf.float32)],
        reduce_retracing=True,
    )
    def run(x):
        output = model(x, training=False)
        length = tf.shape(x)[1]
        if cell is None:
            return output, tf.ones([length], tf.float32)

        def body(t, decisions, *states):
            _, new_states = cell(x[:, t, :], list(states), training=False)
            return (t + 1, decisions.write(t, gate.read_decision(new_states)), *new_states)

        init = list(cell.get_initial_state(batch_size=1))
        out = tf.while_loop(
            lambda t, *_: t < length, body, (tf.constant(0), tf.TensorArray(tf.float32, size=length), *init)
        )
        return output, out[1].stack()

    def reference(batch, threshold):
        return run(tf.constant(batch, tf.float32))

    return reference


def parity_runner(signature):
    """callable(x [1, T, F], threshold) -> outputs of a sequence export's signature."""
    takes = set(signature.get_input_details())

    def run(sequence, threshold):
        inputs = {contracts.INPUT_SEQUENCE: np.asarray(sequence, np.float32)}
        if contracts.INPUT_THRESHOLD in takes:
            inputs[contracts.INPUT_THRESHOLD] = np.float32(threshold)
        return signature(**inputs)

    return run
