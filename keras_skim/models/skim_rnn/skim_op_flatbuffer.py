"""The .tflite of a skim classifier with its cell's op (`KerasSkimLSTM`,
`KerasSkimGRU`), written directly with `flatbuffer_writer`:

    token_ids i32 [1,T], threshold, and the weights (skim_rnn_op.h)
      --CUSTOM KerasSkimLSTM | KerasSkimGRU--> h [1,d], mask f32 [1,T], read_count i32 [1]
    mask --CAST--> read_mask i32 [1,T]   (the one signature: keras_skim.contracts)
    h --FULLY_CONNECTED(dense)--> logits [1,k]   (before the Dense activation)

(the settings such a file records in its description: `custom_op_backend.model_settings`).
"""

import numpy as np

from keras_skim import contracts
from keras_skim.export.flatbuffer_writer import FlatbufferWriter
from keras_skim.models.skim_rnn.skim_op_weights import quantized_weights

# The description's producer: the backend that writes these files (kept so that exports stay byte-identical).
PRODUCER = "keras_skim.export.custom_op_backend"


def _op_inputs(fb, ops, mask_zero):
    """The op's constant inputs, in skim_rnn_op.h's order (after token_ids and threshold)."""
    names = ("rows", "rows_scale", "kernel", "kernel_scale", "skim_kernel", "bias")
    inputs = [fb.constant("options", np.array([int(mask_zero)], np.int32))]
    inputs += [fb.constant(name, ops[name]) for name in names]
    if "recurrent_bias" in ops:
        inputs.append(fb.constant("recurrent_bias", ops["recurrent_bias"]))
    return inputs


def skim_op_flatbuffer(info, threshold, length, fold=False, quantize=None):
    """The .tflite bytes of the op's model `info` (`skim_op_weights.skim_op_model`)."""
    w = info["weights"]
    d, ds = info["d"], info["ds"]
    C = w["Wd"].shape[1]
    ops = quantized_weights(info, fold=fold, quantize=quantize)
    fb = FlatbufferWriter()
    F32, I32 = np.float32, np.int32
    t_tok = fb.tensor(contracts.INPUT_TOKEN_IDS, [1, length], I32, signature=[1, -1])
    t_thr = fb.tensor(contracts.INPUT_THRESHOLD, [], F32)
    op_inputs = [t_tok, t_thr, *_op_inputs(fb, ops, info["mask_zero"])]
    t_Wd = fb.constant("dense_kernel", w["Wd"].T.astype(np.float32))
    t_bd = fb.constant("dense_bias", w["bd"].astype(np.float32))
    t_h = fb.tensor("h", [1, d], F32)
    # The op writes its mask as float32 (1.0 read, 0.0 skimmed); a CAST
    # gives the signature's int32 `read_mask`, the dtype of every export.
    t_op_mask = fb.tensor("read_mask_float", [1, length], F32, signature=[1, -1])
    t_m = fb.tensor(contracts.OUTPUT_READ_MASK, [1, length], I32, signature=[1, -1])
    t_n = fb.tensor(contracts.OUTPUT_READ_COUNT, [1], I32)
    t_y = fb.tensor(contracts.OUTPUT_LOGITS, [1, C], F32)
    op_name = info["spec"].op_name
    custom = fb.opcode(fb.S.BuiltinOperator.CUSTOM, op_name)
    dense = fb.opcode(fb.S.BuiltinOperator.FULLY_CONNECTED)
    cast = fb.opcode(fb.S.BuiltinOperator.CAST)
    fb.custom_operator(custom, op_inputs, [t_h, t_op_mask, t_n])
    fb.cast(cast, t_op_mask, t_m)
    fb.fully_connected(dense, [t_h, t_Wd, t_bd], [t_y])
    return fb.finish(
        [(contracts.INPUT_TOKEN_IDS, t_tok), (contracts.INPUT_THRESHOLD, t_thr)],
        [(contracts.OUTPUT_LOGITS, t_y), (contracts.OUTPUT_READ_MASK, t_m), (contracts.OUTPUT_READ_COUNT, t_n)],
        {
            "producer": PRODUCER,
            "custom_op": op_name,
            "units": d,
            "small_units": ds,
            "threshold": float(threshold),
            "output_activation": info["output_activation"],
            "mask_zero": info["mask_zero"],
            "folded": bool(fold),
            "quantize": quantize,
        },
    )
