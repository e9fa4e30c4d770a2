"""A Structural-Jump-LSTM model as one `KerasSjLSTM` custom op (the custom
backend's writer for jump models).

    token_ids i32 [1,T], and the folded weights (keras_skim/litert_ops/kernels/sj_lstm_op.h;
    float32, or with `--quantize int8` the rows and the LSTM kernel int8 and their scales)
      --CUSTOM KerasSjLSTM--> h [1,m], read_mask i32 [1,T], read_count i32 [1], visited_count i32 [1]
    h --FULLY_CONNECTED(hidden, relu)--> --FULLY_CONNECTED(logits)--> logits [1,k]

The op walks the raw ids itself: it finds the word stream and the jump
targets from a per-id kind table, visits only the words it does not jump
over, and runs the skip agent on each of them and the LSTM step and the
jump agent on the read ones. The signature has no `threshold` input (the
agents decide what is read; `keras_skim.model_kinds`). Interpreters must register `keras_skim.litert_ops`
(the runtime's `make_interpreter` does).
"""

import numpy as np

from keras_skim import contracts
from keras_skim.export.int8_weights import check_quantize, dequantize, quantize_int8
from keras_skim.models.structural_jump.structural_jump_emitter import OP_NAME

SIGNATURE_OUTPUTS = (
    contracts.OUTPUT_LOGITS,
    contracts.OUTPUT_READ_MASK,
    contracts.OUTPUT_READ_COUNT,
    contracts.OUTPUT_VISITED_COUNT,
)


# The description's producer: a label of the writer, kept as the first exports wrote it (the module's path before
# issue 29 moved it) so that exports stay byte-identical; not an import path.
PRODUCER = "keras_skim.export.structural_jump_op"


def should_fold(emitter):
    """Fold the LSTM's word term into the per-id rows only if that does not
    grow the model (a row [a + 4m] instead of [a + d])."""
    return 4 * emitter.units <= emitter.embedding_dim


def op_inputs(emitter, fold=False):
    """The constant inputs of `KerasSjLSTM` (see sj_lstm_op.h), float32 (kinds int8)."""
    e = emitter
    f32 = lambda a: np.ascontiguousarray(a, np.float32)  # noqa: E731
    word_terms = e.embedding @ e.lstm_input if fold else e.embedding
    kernel = e.lstm_recurrent if fold else np.concatenate([e.lstm_input, e.lstm_recurrent], axis=0)
    return {
        "options": np.array([int(e.speed_reading)], np.int32),
        "kinds": np.ascontiguousarray(e.kinds, np.int8),
        "rows": f32(np.concatenate([e.skip_rows, word_terms], axis=1)),
        "previous": f32(np.concatenate([e.skip_previous, e.lstm_previous], axis=1)),
        "kernel": f32(kernel),
        "skip_kernel": f32(e.skip_recurrent),
        "skip_head": f32(np.concatenate([e.skip_head, [e.skip_head_bias]])),
        "jump_kernel": f32(np.concatenate([e.jump_kernel, e.jump_bias[None, :]], axis=0)),
        "jump_head": f32(np.concatenate([e.jump_head, e.jump_head_bias[None, :]], axis=0)),
    }


def quantized_op_inputs(emitter, fold=False, quantize=None):
    """`op_inputs`, with quantize="int8" its two big matrices int8: `rows`
    with two scales per row ([V, 2]: the skip agent's terms [0, a), then the
    word's LSTM part, each quantized on its own range) and `kernel` with a
    scale per column ([4m]), the scales as two more inputs (`rows_scale`,
    `kernel_scale`). The agents' matrices, `previous` and the head stay
    float32: they are a few kB, and the agents decide what is read."""
    check_quantize(quantize)
    inputs = op_inputs(emitter, fold=fold)
    if quantize != "int8":
        return inputs
    a = emitter.agent_units
    rows = inputs["rows"]
    agent, agent_scale = quantize_int8(rows[:, :a], axis=0)
    word, word_scale = quantize_int8(rows[:, a:], axis=0)
    inputs["rows"] = np.concatenate([agent, word], axis=1)
    inputs["rows_scale"] = np.stack([agent_scale, word_scale], axis=1)
    inputs["kernel"], inputs["kernel_scale"] = quantize_int8(inputs["kernel"], axis=1)
    return inputs


def dequantized_op_inputs(inputs, agent_units):
    """float64 rows and kernel of `quantized_op_inputs` (int8 times its scales)."""
    if "rows_scale" not in inputs:
        return inputs["rows"].astype(np.float64), inputs["kernel"].astype(np.float64)
    a, scale = agent_units, inputs["rows_scale"]
    rows = np.concatenate(
        [
            dequantize(inputs["rows"][:, :a], scale[:, 0], axis=0),
            dequantize(inputs["rows"][:, a:], scale[:, 1], axis=0),
        ],
        axis=1,
    )
    return rows, dequantize(inputs["kernel"], inputs["kernel_scale"], axis=1)


def structural_jump_flatbuffer(plan, length=None, fold=None, quantize=None):
    """The .tflite bytes of a Structural-Jump-LSTM `ModelPlan` with the
    `KerasSjLSTM` op.

    Args:
        plan: `keras_skim.export.plan.plan_model` of the model.
        length: default T of `token_ids` (resizable; 1 when None).
        fold: store the LSTM's word term per id ([V, a + 4m] rows instead
            of [V, a + d]): a read step then streams only the recurrent
            weights, but the file grows about 4m / d times the embedding.
            None folds only when that does not grow the model.
        quantize: None (float32) or "int8": int8 rows and LSTM kernel
            with float32 scales (`quantized_op_inputs`), as the skim ops'.
    """
    from keras_skim.export.flatbuffer_writer import FlatbufferWriter

    e = plan.emitter
    fold = should_fold(e) if fold is None else bool(fold)
    length = int(length or 1)
    inputs = quantized_op_inputs(e, fold=fold, quantize=quantize)
    fb = FlatbufferWriter()
    F32, I32 = np.float32, np.int32
    t_tok = fb.tensor(contracts.INPUT_TOKEN_IDS, [1, length], I32, signature=[1, -1])
    constants = [
        fb.constant(name, inputs[name])
        for name in (
            "options",
            "kinds",
            "rows",
            "previous",
            "kernel",
            "skip_kernel",
            "skip_head",
            "jump_kernel",
            "jump_head",
            # int8 only: the float files keep the ten inputs they had
            *(("rows_scale", "kernel_scale") if quantize else ()),
        )
    ]
    (hidden_kernel, hidden_bias, hidden_activation), (kernel, bias, _) = plan.head
    t_hidden_kernel = fb.constant("hidden_kernel", hidden_kernel.T.astype(np.float32))
    t_hidden_bias = fb.constant("hidden_bias", hidden_bias.astype(np.float32))
    t_logits_kernel = fb.constant("logits_kernel", kernel.T.astype(np.float32))
    t_logits_bias = fb.constant("logits_bias", bias.astype(np.float32))
    t_h = fb.tensor("h", [1, e.units], F32)
    t_mask = fb.tensor(contracts.OUTPUT_READ_MASK, [1, length], I32, signature=[1, -1])
    t_read = fb.tensor(contracts.OUTPUT_READ_COUNT, [1], I32)
    t_visited = fb.tensor(contracts.OUTPUT_VISITED_COUNT, [1], I32)
    t_hidden = fb.tensor("hidden", [1, hidden_kernel.shape[1]], F32)
    t_logits = fb.tensor("logits", [1, kernel.shape[1]], F32)
    custom = fb.opcode(fb.S.BuiltinOperator.CUSTOM, OP_NAME)
    dense = fb.opcode(fb.S.BuiltinOperator.FULLY_CONNECTED)
    fb.custom_operator(custom, [t_tok, *constants], [t_h, t_mask, t_read, t_visited])
    fb.fully_connected(
        dense,
        [t_h, t_hidden_kernel, t_hidden_bias],
        [t_hidden],
        activation=None if hidden_activation == "linear" else hidden_activation,
    )
    fb.fully_connected(dense, [t_hidden, t_logits_kernel, t_logits_bias], [t_logits])
    return fb.finish(
        [(contracts.INPUT_TOKEN_IDS, t_tok)],
        list(zip(SIGNATURE_OUTPUTS, (t_logits, t_mask, t_read, t_visited))),
        {
            "producer": PRODUCER,
            "custom_op": OP_NAME,
            "units": e.units,
            "agent_units": e.agent_units,
            "speed_reading": e.speed_reading,
            "folded": fold,
            "quantize": quantize,
        },
    )
