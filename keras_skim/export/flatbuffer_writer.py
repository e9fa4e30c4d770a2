"""Writes the .tflite flatbuffer of a custom-op export directly (LiteRT schema
object API, no converter): one subgraph, constant buffers 64-byte aligned,
the `serving_default` signature. Used by the custom-op backend's writers
(`skim_op_flatbuffer` for the skim cells' ops, and a model family's own op
writer, reached through its exporter: `family_exporter`).
"""

import functools
import json

import numpy as np

from keras_skim.contracts import SIGNATURE_KEY

# LiteRT's custom-op path hands every constant tensor to the op as a host
# tensor buffer and refuses data that is not 64-byte aligned ("Unaligned host
# memory pointer"); the Python flatbuffers object API ignores the schema's
# force_align. So each buffer's data starts at a multiple of this from the
# start of the file (the runtime copies the file itself into aligned memory).
BUFFER_ALIGNMENT = 64


def _schema():
    from ai_edge_litert import schema_py_generated

    return schema_py_generated


@functools.lru_cache(maxsize=None)
def _aligned_buffer_class(S):
    """A subclass of the schema's `BufferT` whose `data` (a uint8 array)
    packs at a multiple of `BUFFER_ALIGNMENT` from the start of the finished
    flatbuffer."""

    class AlignedBufferT(S.BufferT):
        def Pack(self, builder):
            # Flatbuffers grow from the end and Finish() pads the whole buffer
            # to the largest alignment asked for: padding here so that the
            # vector's first byte lands on a BUFFER_ALIGNMENT boundary from
            # the end puts it on one from the start too.
            builder.Prep(BUFFER_ALIGNMENT, len(self.data))
            data = builder.CreateNumpyVector(self.data)
            S.BufferStart(builder)
            S.BufferAddData(builder, data)
            return S.BufferEnd(builder)

    return AlignedBufferT


class FlatbufferWriter:
    """Collects tensors, constant buffers, operator codes and operators of one
    subgraph, then `finish`es the model."""

    def __init__(self):
        self.S = S = _schema()
        self.buffers = [S.BufferT()]  # buffer 0: empty, for non-constant tensors
        self.tensors = []
        self.codes = []
        self.operators = []
        self.types = {
            np.dtype(np.float32): S.TensorType.FLOAT32,
            np.dtype(np.int32): S.TensorType.INT32,
            np.dtype(np.int8): S.TensorType.INT8,
        }

    def tensor(self, name, shape, dtype, buffer=0, signature=None):
        """Adds a tensor (dtype: a NumPy dtype); returns its index."""
        t = self.S.TensorT()
        t.name = name.encode()
        t.shape = list(shape)
        if signature is not None:
            t.shapeSignature = list(signature)
        t.type = self.types[np.dtype(dtype)]
        t.buffer = buffer
        self.tensors.append(t)
        return len(self.tensors) - 1

    def constant(self, name, array):
        """Adds a constant tensor holding `array`, 64-byte aligned; returns its index."""
        array = np.ascontiguousarray(array)
        if array.size == 0:
            # An unused input (a scale of float weights, the bias of folded
            # rows): a 1-element placeholder, since LiteRT's C API cannot hand
            # a custom op a tensor with a zero dimension.
            array = np.zeros((1,), array.dtype)
        b = _aligned_buffer_class(self.S)()
        b.data = np.frombuffer(array.tobytes(), np.uint8)
        self.buffers.append(b)
        return self.tensor(name, array.shape, array.dtype, len(self.buffers) - 1)

    def opcode(self, builtin, custom=None):
        """Adds an operator code (`builtin`: a schema BuiltinOperator); returns its index."""
        oc = self.S.OperatorCodeT()
        oc.builtinCode = builtin
        oc.deprecatedBuiltinCode = min(builtin, 127)
        oc.version = 1
        if custom:
            oc.customCode = custom.encode()
        self.codes.append(oc)
        return len(self.codes) - 1

    def operator(self, opcode, inputs, outputs, options_type=0, options=None):
        o = self.S.OperatorT()
        o.opcodeIndex = opcode
        o.inputs = list(inputs)
        o.outputs = list(outputs)
        if options is not None:
            o.builtinOptionsType = options_type
            o.builtinOptions = options
        self.operators.append(o)
        return o

    def custom_operator(self, opcode, inputs, outputs):
        op = self.operator(opcode, inputs, outputs)
        op.customOptionsFormat = self.S.CustomOptionsFormat.FLEXBUFFERS
        return op

    def fully_connected(self, opcode, inputs, outputs, activation=None):
        """A FULLY_CONNECTED operator (`activation`: None or "relu", fused)."""
        S = self.S
        options = S.FullyConnectedOptionsT()
        options.keepNumDims = False
        if activation == "relu":
            options.fusedActivationFunction = S.ActivationFunctionType.RELU
        elif activation is not None:
            raise ValueError(f"unsupported fused activation {activation!r}")
        return self.operator(opcode, inputs, outputs, S.BuiltinOptions.FullyConnectedOptions, options)

    def cast(self, opcode, source, target):
        """A CAST operator from tensor `source` to tensor `target` (their
        dtypes say which cast): a custom op's float mask becomes the int32
        `read_mask` of the one signature (`keras_skim.contracts`)."""
        S = self.S
        options = S.CastOptionsT()
        options.inDataType = self.tensors[source].type
        options.outDataType = self.tensors[target].type
        return self.operator(opcode, [source], [target], S.BuiltinOptions.CastOptions, options)

    def finish(self, inputs, outputs, description):
        """The flatbuffer bytes: `inputs` / `outputs` are [(signature name,
        tensor index)] in order; `description` a JSON-able dict."""
        S = self.S
        subgraph = S.SubGraphT()
        subgraph.tensors = self.tensors
        subgraph.inputs = [i for _, i in inputs]
        subgraph.outputs = [i for _, i in outputs]
        subgraph.operators = self.operators
        subgraph.name = b"main"
        model = S.ModelT()
        model.version = 3
        model.operatorCodes = self.codes
        model.subgraphs = [subgraph]
        model.buffers = self.buffers
        model.description = json.dumps(description).encode()

        def tensor_map(name, index):
            m = S.TensorMapT()
            m.name = name.encode()
            m.tensorIndex = index
            return m

        signature = S.SignatureDefT()
        signature.signatureKey = SIGNATURE_KEY.encode()
        signature.subgraphIndex = 0
        signature.inputs = [tensor_map(name, index) for name, index in inputs]
        signature.outputs = [tensor_map(name, index) for name, index in outputs]
        model.signatureDefs = [signature]
        import flatbuffers

        builder = flatbuffers.Builder(1024)
        builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
        return bytes(builder.Output())


def model_description(path_or_bytes):
    """The JSON dict a custom-op .tflite (path or bytes) records in its description."""
    S = _schema()
    data = path_or_bytes
    if not isinstance(data, (bytes, bytearray)):
        with open(data, "rb") as f:
            data = f.read()
    description = S.Model.GetRootAsModel(data, 0).Description() or b"{}"
    return json.loads(description.decode())
