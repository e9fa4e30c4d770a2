"""The operators of a TFLite flatbuffer, read from its schema (no interpreter)."""

import collections


def _schema():
    # The TFLite schema as ai-edge-litert (the runtime's dependency) ships it,
    # not TensorFlow's private tensorflow.lite.python copy.
    from ai_edge_litert import schema_py_generated

    return schema_py_generated


def op_inventory(model_bytes):
    """{subgraph name: [op name, ...]}; custom ops read as "CUSTOM:<name>"."""
    schema = _schema()
    names = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
    model = schema.Model.GetRootAsModel(model_bytes, 0)
    result = collections.OrderedDict()
    for g in range(model.SubgraphsLength()):
        subgraph = model.Subgraphs(g)
        ops = []
        for i in range(subgraph.OperatorsLength()):
            code = model.OperatorCodes(subgraph.Operators(i).OpcodeIndex())
            builtin = max(code.BuiltinCode(), code.DeprecatedBuiltinCode())
            if builtin == schema.BuiltinOperator.CUSTOM:
                ops.append("CUSTOM:" + (code.CustomCode() or b"").decode())
            else:
                ops.append(names.get(builtin, f"BUILTIN_{builtin}"))
        name = (subgraph.Name() or b"").decode() or f"subgraph_{g}"
        result[name] = ops
    return result


def non_builtin_ops(model_bytes):
    """Sorted names of the custom / Select TF (Flex) ops in the model."""
    found = set()
    for ops in op_inventory(model_bytes).values():
        found.update(op for op in ops if op.startswith("CUSTOM:"))
    return sorted(found)
