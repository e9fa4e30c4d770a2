"""Checks the structure of a .tflite before LiteRT sees it; no TensorFlow.

LiteRT builds its interpreter from a model's flatbuffer without verifying
it, so a single flipped bit (a tensor index, a buffer offset, a subgraph
index of a WHILE) or a hand-made model (a custom-op node input of -1) can
crash the process at the first run. `check_model` reads every part of the
TFLite schema that LiteRT reads (schema.fbs of LiteRT: Model, OperatorCode,
SubGraph, Tensor, Buffer, Operator, SignatureDef, Metadata) through the
bounds-checked `flatbuffer_reader`, and checks what refers to what:

- every table, vector and string lies inside the file;
- operator code indices, tensor indices (-1, "no tensor", only for the
  optional inputs of builtin ops), buffer indices and subgraph indices
  (WHILE / IF / CALL_ONCE / CALL, which must not call themselves) are in
  range;
- a constant tensor's buffer holds exactly its shape's bytes, and no
  operator writes a constant;
- the builtin ops keras-skim exports use have their number of inputs and
  outputs, and options of a type LiteRT knows;
- data flow, in the order LiteRT runs the operators: each reads tensors
  that exist by then and writes tensors nothing else writes; every
  subgraph output is written;
- the subgraphs a WHILE / IF / CALL_ONCE runs take and give tensors of the
  element type and shape the op passes (a loop body that gives back a
  scalar where it took a vector sent LiteRT's loop into an endless run);
- the signatures name distinct tensors of their subgraph's inputs and
  outputs, each with a name.

The rules that go beyond the format itself each come from a crash that
seeded fuzzing of real exports found (tests/runtime/fuzz_exports.py).

What keras-skim exports never use (sparse tensors, external buffers,
StableHLO options, variant tensors) is refused rather than verified. A
failure raises `ModelCheckError` with one line.

This is keras-skim's one reader of the TFLite schema, TensorFlow-free:
the runtime checks every model with it before LiteRT opens it, and export
lists the operators it wrote with `op_inventory` (its metadata's `ops`).

    summary = check_model(open("model.tflite", "rb").read())
    summary.custom_ops      # (the model kind's op, `contracts.CUSTOM_OPS`,) or ()
    op_inventory(data)      # {"main": ["CUSTOM:<its op>", "FULLY_CONNECTED"]}
"""

import collections
import dataclasses
import functools
import math

from keras_skim.runtime.flatbuffer_reader import Flatbuffer, FlatbufferError

SCHEMA_VERSION = 3  # the TFLite schema version every LiteRT reads
MAX_RANK = 8  # the runtime's tensors (litert_ops/runner/keras_skim_c.h) hold at most 8 dimensions
MAX_TENSOR_BYTES = 1 << 31
# Builtin operator codes (schema.fbs `BuiltinOperator`) the check needs.
CUSTOM, CALL, IF, WHILE, CALL_ONCE = 32, 31, 118, 119, 129
# The last `BuiltinOptions` union member of the LiteRT releases this runtime
# is tested with (2.1.6 to 2.3.0): LiteRT indexes a table by the type and
# crashes past it.
MAX_OPTIONS_TYPE = 126
# `BuiltinOptions` union members whose fields point at subgraphs or vectors.
_SUBGRAPH_OPTIONS = {93: ("WHILE", 2), 92: ("IF", 2), 103: ("CALL_ONCE", 1)}
_CONTROL_FLOW_OPTIONS = {WHILE: 93, IF: 92, CALL_ONCE: 103}
_VECTOR_OPTIONS = {17: ((0, "i32"),), 30: ((0, "i32"),), 3: ((1, "i32"), (2, "i32")), 115: ((0, "f32"),)}
_STRING_OPTIONS = {111: (0, 1)}  # VarHandleOptions: container, shared_name
_CALL_OPTIONS = 16
_ANY = 1 << 30
_BINARY = ((2, 2), (1, 1))
_UNARY = ((1, 1), (1, 1))
# (inputs, outputs) count ranges of the builtin ops keras-skim exports use,
# by `BuiltinOperator` code (the arity LiteRT's kernels and its XNNPACK
# delegate read without always checking: a MUL turned into a STRIDED_SLICE
# by one flipped bit reads two inputs past the node's list). Ops not
# listed are left to LiteRT.
_ARITY = {
    **dict.fromkeys((0, 18, 41, 42, 55, 57, 58, 61, 62, 63, 71, 72, 78, 86, 84, 90, 95, 99), _BINARY),
    **dict.fromkeys((14, 19, 28, 47, 53, 59, 73, 75, 76, 77, 87, 92, 101, 158), _UNARY),
    2: ((1, _ANY), (1, 1)),  # CONCATENATION
    9: ((2, 3), (1, 2)),  # FULLY_CONNECTED (the bias may be -1)
    22: ((1, 2), (1, 1)),  # RESHAPE
    36: ((2, 2), (1, 1)),  # GATHER
    45: ((4, 4), (1, 1)),  # STRIDED_SLICE
    49: ((2, 2), (1, _ANY)),  # SPLIT
    102: ((3, 3), (1, _ANY)),  # SPLIT_V
    56: ((2, 2), (1, 1)),  # ARG_MAX
    79: ((2, 2), (1, 1)),  # ARG_MIN
    64: ((3, 3), (1, 1)),  # SELECT
    123: ((3, 3), (1, 1)),  # SELECT_V2
    70: ((2, 2), (1, 1)),  # EXPAND_DIMS
    **dict.fromkeys((40, 74, 81, 82, 89, 91), ((2, 2), (1, 1))),  # MEAN, SUM, REDUCE_PROD/MAX/MIN/ANY
    83: ((1, _ANY), (1, 1)),  # PACK
    128: ((2, 2), (1, 1)),  # CUMSUM
    151: ((3, 3), (1, 1)),  # DYNAMIC_UPDATE_SLICE
    IF: ((1, _ANY), (0, _ANY)),
    WHILE: ((1, _ANY), (1, _ANY)),  # as many outputs as inputs (checked too)
}
# Ops whose options' first field counts their inputs or outputs (SPLIT's
# num_splits, SPLIT_V's, PACK's values_count, UNPACK's num): LiteRT writes
# or reads that many (a SPLIT told 7 of its 3 outputs wrote past them).
_COUNTED_OPTIONS = {49: (35, "outputs"), 102: (79, "outputs"), 83: (59, "inputs"), 88: (64, "outputs")}
# Inputs the ops of `_ARITY` may omit (-1): FULLY_CONNECTED's bias.
_OPTIONAL_INPUTS = {9: (2,)}
# Bits per element of each `TensorType`; None: no fixed size (string, resource, variant).
_TYPE_BITS = {
    0: 32, 1: 16, 2: 32, 3: 8, 4: 64, 5: None, 6: 8, 7: 16, 8: 64, 9: 8, 10: 64, 11: 128,
    12: 64, 13: None, 14: None, 15: 32, 16: 16, 17: 4, 18: 16, 19: 2, 20: 4, 21: 8, 22: 8,
}  # fmt: skip


_CONSTANT, _VARIABLE = "constant", "variable"


class ModelCheckError(ValueError):
    """A .tflite that is not a well-formed TFLite model; one line."""


@dataclasses.dataclass(frozen=True)
class ModelSummary:
    """What the check learnt on the way: custom op names, subgraph count, and
    per subgraph its name (None when absent) and its operators in order, each
    (builtin code, custom op name or None)."""

    custom_ops: tuple
    subgraphs: int
    operators: tuple = ()


def check_model(data):
    """Checks the bytes of a .tflite; returns its `ModelSummary`.

    Raises:
        ModelCheckError: one line saying what is malformed and where.
    """
    data = memoryview(data).cast("B") if not isinstance(data, (bytes, bytearray)) else data
    if len(data) < 8 or bytes(data[4:8]) != b"TFL3":
        raise ModelCheckError("not a TFLite model (no TFL3 identifier)")
    try:
        return _Checker(Flatbuffer(data)).run()
    except FlatbufferError as err:
        raise ModelCheckError(f"not a TFLite model (malformed flatbuffer: {err})") from None


def _text(table, field, what):
    """A string field that LiteRT turns into text: UTF-8 (None when absent)."""
    value = table.string(field, what)
    try:
        return None if value is None else value.decode("utf-8")
    except UnicodeDecodeError:
        _bad(f"{what} is not UTF-8")


def _fit(kinds, wanted):
    """Whether tensors of `kinds` can stand for tensors of `wanted`, one by
    one: the same element type and rank, and dimensions equal where both
    are known before the run."""
    if len(kinds) != len(wanted):
        return False
    for kind, want in zip(kinds, wanted):
        if kind is None or want is None:
            if kind != want:
                return False
            continue
        (type_a, shape_a), (type_b, shape_b) = kind, want
        if type_a != type_b or len(shape_a) != len(shape_b):
            return False
        if any(a != b and a != -1 and b != -1 for a, b in zip(shape_a, shape_b)):
            return False
    return True


def _bad(message):
    raise ModelCheckError(f"malformed TFLite model: {message}")


class _Checker:
    def __init__(self, fb):
        self.fb = fb
        self.model = fb.root("model")

    def run(self):
        model = self.model
        version = model.scalar(0, "u32")
        if version != SCHEMA_VERSION:
            _bad(f"schema version {version} (LiteRT reads version {SCHEMA_VERSION})")
        if model.has(8) or model.has(9):
            _bad("external buffers, which keras-skim exports never use")
        model.string(3, "model description")
        self.codes = [self._operator_code(t) for t in model.tables(1, "operator code")]
        self.buffer_bytes = [self._buffer(t) for t in model.tables(4, "buffer")]
        for index in model.scalars(5, "i32", "metadata buffer list"):
            self._index(index, len(self.buffer_bytes), "metadata buffer")
        for entry in model.tables(6, "metadata entry"):
            _text(entry, 0, f"{entry.what} name")
            self._index(entry.scalar(1, "u32"), len(self.buffer_bytes), f"{entry.what} buffer")
        subgraphs = model.tables(2, "subgraph")
        if not subgraphs:
            _bad("no subgraph")
        self.subgraph_count = len(subgraphs)
        self.calls, self.types, self.shapes, self.sites, self.operators = {}, {}, {}, [], []
        self.io = [self._subgraph(g, table) for g, table in enumerate(subgraphs)]
        self._check_no_recursion()
        for site in self.sites:
            self._check_call(*site)
        for signature in model.tables(7, "signature"):
            self._signature(signature)
        custom = sorted({name for code, name in self.codes if code == CUSTOM})
        return ModelSummary(tuple(custom), len(subgraphs), tuple(self.operators))

    @staticmethod
    def _index(value, count, what, optional=False):
        if not (0 <= value < count or (optional and value == -1)):
            _bad(f"{what} index {value} out of range [0, {count})")
        return value

    def _operator_code(self, table):
        deprecated = table.scalar(0, "i8")
        code = max(deprecated, table.scalar(3, "i32"))
        name = table.string(1, f"{table.what} custom name")
        if code < 0:
            _bad(f"{table.what} has builtin code {code}")
        if code == CUSTOM:
            if not name:
                _bad(f"{table.what} is a custom op without a name")
            try:
                name = name.decode("utf-8")
            except UnicodeDecodeError:
                _bad(f"{table.what} has a custom op name that is not UTF-8")
        return code, name

    def _buffer(self, table):
        """The bytes a buffer holds (inline data, or an offset/size into the file)."""
        inline = table.byte_count(0, f"{table.what} data")
        offset, size = table.scalar(1, "u64"), table.scalar(2, "u64")
        if offset > 1:  # 0 and 1 mean "not stored after the flatbuffer"
            self.fb.need(offset, size, f"{table.what} data")
            return size
        return inline

    def _subgraph(self, g, table):
        name = f"subgraph {g}"
        self.types[g], self.shapes[g] = [], []
        tensors = [self._tensor(g, t) for t in table.tables(0, f"{name} tensor")]
        count = len(tensors)
        inputs = [self._index(i, count, f"{name} input tensor") for i in table.scalars(1, "i32", f"{name} inputs")]
        outputs = [self._index(i, count, f"{name} output tensor") for i in table.scalars(2, "i32", f"{name} outputs")]
        ops = []
        self.operators.append((_text(table, 4, f"{name} name"), ops))
        for i in inputs:
            if tensors[i] == _CONSTANT:
                _bad(f"{name} input tensor {i} is a constant")
        self.calls[g] = set()
        # Data flow, in the order LiteRT runs the operators: each reads only
        # what exists by then and writes tensors nothing else writes (a
        # comparison writing a subgraph input left the loop condition's
        # output unallocated, and LiteRT crashed reading it).
        ready = set(inputs) | {i for i, kind in enumerate(tensors) if kind}
        written = set()
        for k, op in enumerate(table.tables(3, f"{name} operator")):
            reads, writes = self._operator(g, k, op, tensors, ops)
            for i in reads:
                if i != -1 and i not in ready:
                    _bad(f"{name} operator {k} reads tensor {i} before anything writes it")
            for i in writes:
                if i in written or i in inputs:
                    _bad(f"{name} operator {k} writes tensor {i}, which is written elsewhere")
                written.add(i)
                ready.add(i)
        for i in outputs:
            if i not in ready:
                _bad(f"{name} output tensor {i} is never written")
        return inputs, outputs, count

    def _tensor(self, g, table):
        """Checks one tensor; returns `_CONSTANT` (it has data), `_VARIABLE`
        (readable before any operator writes it) or None."""
        what = table.what
        shape = table.scalars(0, "i32", f"{what} shape")
        kind = table.scalar(1, "i8")
        if len(shape) > MAX_RANK:
            _bad(f"{what} has rank {len(shape)} (at most {MAX_RANK})")
        if any(d < 0 for d in shape):
            _bad(f"{what} has a negative dimension {list(shape)}")
        if kind not in _TYPE_BITS:
            _bad(f"{what} has unknown element type {kind}")
        self.types[g].append(kind)
        signature = table.scalars(7, "i32", f"{what} shape signature")
        if signature and (len(signature) != len(shape) or any(d < -1 for d in signature)):
            _bad(f"{what} has a shape signature {list(signature)} that does not fit its shape {list(shape)}")
        self.shapes[g].append(tuple(signature or shape))
        if table.has(6) or table.has(9) or table.scalar(10, "u32"):
            _bad(f"{what} is sparse, variant or external, which keras-skim exports never use")
        _text(table, 3, f"{what} name")
        self._quantization(table, len(shape))
        buffer = self._index(table.scalar(2, "u32"), len(self.buffer_bytes), f"{what} buffer")
        stored = self.buffer_bytes[buffer]
        bits = _TYPE_BITS[kind]
        if bits is not None:
            needed = (math.prod(shape) * bits + 7) // 8
            if needed > MAX_TENSOR_BYTES:
                _bad(f"{what} of shape {list(shape)} would take {needed} bytes")
            if stored and stored != needed and not (bits < 8 and stored == math.prod(shape)):
                _bad(f"{what} of shape {list(shape)} needs {needed} bytes but its buffer {buffer} holds {stored}")
        if stored:
            return _CONSTANT
        if table.scalar(5, "u8") or (shape and math.prod(shape) == 0):
            return _VARIABLE  # interpreter state, or nothing to read (a [0] shape constant)
        return None

    def _quantization(self, tensor, rank):
        table = tensor.table(4, f"{tensor.what} quantization")
        if table is None:
            return
        what = table.what
        for field in (0, 1):
            table.scalars(field, "f32", f"{what} range")
        scales = table.scalars(2, "f32", f"{what} scales")
        zero_points = table.scalars(3, "i64", f"{what} zero points")
        if scales and zero_points and len(scales) != len(zero_points):
            _bad(f"{what} has {len(scales)} scales and {len(zero_points)} zero points")
        if len(scales) > 1:
            self._index(table.scalar(6, "i32"), max(rank, 0), f"{what} quantized dimension")
        if table.scalar(4, "u8"):
            details = table.table(5, f"{what} details")
            if details is not None:
                details.byte_count(0, f"{what} custom details")

    def _operator(self, g, k, op, tensors, ops):
        what = f"subgraph {g} operator {k}"
        code, name = self.codes[self._index(op.scalar(0, "u32"), len(self.codes), f"{what} operator code")]
        custom = code == CUSTOM
        ops.append((code, name if custom else None))
        label = f"{what} ({name})" if custom else what
        count = len(tensors)
        inputs = op.scalars(1, "i32", f"{what} inputs")
        outputs = op.scalars(2, "i32", f"{what} outputs")
        self._check_arity(label, code, len(inputs), len(outputs))
        optional = _OPTIONAL_INPUTS.get(code, ()) if custom or code in _ARITY else None
        for position, i in enumerate(inputs):
            # -1 marks an omitted optional input: custom ops read every input,
            # the listed builtin ops only omit the ones they may (a STRIDED_SLICE
            # without its end reads a null tensor); other ops are left to LiteRT.
            allowed = optional is None or position in optional
            self._index(i, count, f"{label} input {position} tensor", optional=allowed)
        for i in outputs:
            self._index(i, count, f"{label} output tensor")
            if tensors[i] == _CONSTANT:
                _bad(f"{label} writes the constant tensor {i}")
        for i in op.scalars(8, "i32", f"{what} intermediates"):
            self._index(i, count, f"{what} intermediate tensor")
        op.scalars(7, "bool", f"{what} mutating inputs")
        op.byte_count(5, f"{what} custom options")
        size = op.scalar(10, "u64")
        if size:
            self.fb.need(op.scalar(9, "u64"), size, f"{what} large custom options")
        if op.scalar(11, "u8") or op.has(12):
            _bad(f"{what} has StableHLO options, which keras-skim exports never use")
        self._options(g, what, code, op, inputs, outputs)
        return inputs, outputs

    @staticmethod
    def _check_arity(label, code, inputs, outputs):
        if code == WHILE and inputs != outputs:
            _bad(f"{label} is a WHILE with {inputs} inputs but {outputs} outputs")
        if code not in _ARITY:
            return
        (low_in, high_in), (low_out, high_out) = _ARITY[code]
        if not (low_in <= inputs <= high_in and low_out <= outputs <= high_out):
            _bad(f"{label} (builtin op {code}) has {inputs} inputs and {outputs} outputs")

    def _options(self, g, what, code, op, inputs, outputs):
        kind = op.scalar(3, "u8")
        if kind > MAX_OPTIONS_TYPE:
            _bad(f"{what} has options of unknown type {kind}")
        options = op.table(4, f"{what} options") if kind else None
        expected = _CONTROL_FLOW_OPTIONS.get(code)
        if expected is not None and (kind != expected or options is None):
            _bad(f"{what} is a control-flow op without its subgraph options")
        if options is None:
            if code in _COUNTED_OPTIONS:
                _bad(f"{what} (builtin op {code}) has no options")
            return
        options.check_fields()
        if code in _COUNTED_OPTIONS:
            wanted, side = _COUNTED_OPTIONS[code]
            count = len(inputs if side == "inputs" else outputs)
            if kind != wanted or options.scalar(0, "i32") != count:
                _bad(f"{what} (builtin op {code}) options do not match its {count} {side}")
        if kind in _SUBGRAPH_OPTIONS:
            op_name, fields = _SUBGRAPH_OPTIONS[kind]
            targets = []
            for field in range(fields):
                target = options.scalar(field, "i32")
                targets.append(self._index(target, self.subgraph_count, f"{what} ({op_name}) subgraph"))
            self.calls[g].update(targets)
            if kind == _CONTROL_FLOW_OPTIONS.get(code):
                self.sites.append((g, what, code, targets, inputs, outputs))
        elif kind == _CALL_OPTIONS:
            target = options.scalar(0, "u32")
            self.calls[g].add(self._index(target, self.subgraph_count, f"{what} (CALL) subgraph"))
        for field, element in _VECTOR_OPTIONS.get(kind, ()):
            options.scalars(field, element, f"{what} options")
        for field in _STRING_OPTIONS.get(kind, ()):
            options.string(field, f"{what} options")

    def _check_call(self, g, what, code, targets, inputs, outputs):
        """The subgraphs a WHILE, IF or CALL_ONCE runs take and give what the
        op passes, in number, element type and shape (LiteRT copies the
        tensors across; a WHILE body giving back a scalar where it took a
        vector made LiteRT's static loop copy the wrong sizes, and it never
        ended: found by fuzzing)."""
        passed = [self._kind(g, i) for i in inputs]
        given = [self._kind(g, i) for i in outputs]
        if code == WHILE:
            cond, body = targets
            wanted = [(cond, passed, None), (body, passed, passed)]
        elif code == IF:
            wanted = [(branch, passed[1:], given) for branch in targets]
        else:  # CALL_ONCE: an initializer without inputs or outputs
            wanted = [(targets[0], [], [])]
        for callee, callee_in, callee_out in wanted:
            ins, outs, _ = self.io[callee]
            takes = [self._kind(callee, i) for i in ins]
            gives = [self._kind(callee, i) for i in outs]
            if not _fit(takes, callee_in) or (callee_out is not None and not _fit(gives, callee_out)):
                _bad(f"{what} passes tensors that subgraph {callee} does not take or give")
            if code == WHILE and callee == targets[0] and len(outs) != 1:
                _bad(f"{what}: its condition, subgraph {callee}, has {len(outs)} outputs (expected 1)")

    def _kind(self, g, i):
        """(element type, shape with -1 for a dimension known only at run
        time) of tensor `i` of subgraph `g`; None for an omitted input."""
        return None if i < 0 else (self.types[g][i], self.shapes[g][i])

    def _check_no_recursion(self):
        """Refuses a subgraph that calls itself, directly or not (LiteRT
        would recurse until the stack overflows); depth-first, without
        Python recursion."""
        done = set()
        for start in range(self.subgraph_count):
            if start in done:
                continue
            path, pending = [start], [iter(sorted(self.calls[start]))]
            while pending:
                callee = next(pending[-1], None)
                if callee is None:
                    done.add(path.pop())
                    pending.pop()
                elif callee in path:
                    _bad(f"subgraph {callee} calls itself (through subgraphs {path + [callee]})")
                elif callee not in done:
                    path.append(callee)
                    pending.append(iter(sorted(self.calls[callee])))

    def _signature(self, table):
        """A signature names distinct tensors of its subgraph's inputs and
        outputs, each once, every name present (LiteRT maps tensors to
        names; a tensor named twice leaves a name null and aborts)."""
        what = table.what
        if _text(table, 2, f"{what} key") is None:
            _bad(f"{what} has no key")
        g = self._index(table.scalar(4, "u32"), self.subgraph_count, f"{what} subgraph")
        inputs, outputs, count = self.io[g]
        for field, allowed, role in ((0, inputs, "input"), (1, outputs, "output")):
            names, tensors = set(), set()
            for entry in table.tables(field, f"{what} {role}"):
                name = _text(entry, 0, f"{entry.what} name")
                index = self._index(entry.scalar(1, "u32"), count, f"{entry.what} tensor")
                if index not in allowed:
                    _bad(f"{entry.what} names tensor {index}, which is not a subgraph {role}")
                if name is None or name in names or index in tensors:
                    _bad(f"{entry.what} repeats a name or a tensor, or has no name")
                names.add(name)
                tensors.add(index)


@functools.cache
def _builtin_names():
    """{builtin operator code: its schema name} (`BuiltinOperator` as the
    ai-edge-litert wheel ships the schema: the names only, not a reader)."""
    from ai_edge_litert import schema_py_generated

    operators = schema_py_generated.BuiltinOperator
    return {v: k for k, v in vars(operators).items() if not k.startswith("_")}


def op_inventory(model_bytes):
    """{subgraph name: [op name, ...]} of a well-formed model (`check_model`);
    custom ops read as "CUSTOM:<name>", builtin ops by their schema name.

    Raises:
        ModelCheckError: one line, as `check_model`.
    """
    names = _builtin_names()
    result = collections.OrderedDict()
    for g, (name, ops) in enumerate(check_model(model_bytes).operators):
        result[name or f"subgraph_{g}"] = [
            f"CUSTOM:{custom}" if code == CUSTOM else names.get(code, f"BUILTIN_{code}") for code, custom in ops
        ]
    return result


def non_builtin_ops(model_bytes):
    """Sorted names of the custom ops in the model ("CUSTOM:<name>")."""
    return sorted({op for ops in op_inventory(model_bytes).values() for op in ops if op.startswith("CUSTOM:")})
