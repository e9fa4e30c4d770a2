"""The builtin backend: the inference graph of `graph_builder` (for a model
family with a graph of its own, of its exporter's `builtin_graph`; for a
stack of recurrent layers or a Bidirectional one, of `stack_graph`), converted with
TensorFlow's TFLite converter to builtin ops only, so that any LiteRT /
TFLite interpreter runs it on any platform."""

from keras_skim.export.errors import ExportError
from keras_skim.export.family_exporter import exporter_of
from keras_skim.export.sequence_input import takes_sequence


class BuiltinBackend:
    """Exports every cell the emitter registry knows, and every model family's
    own graph, with builtin ops only."""

    name = "builtin"
    custom_ops = ()

    def ops_for(self, plan):
        """The custom ops an export of `plan` uses: none."""
        return ()

    def check(self, model, plan):
        """Nothing beyond the model plan: every planned model is supported."""

    def parity_reference(self, model, plan, flatbuffer):
        """The Keras model itself. (An int8 graph quantizes activations on
        the fly, which no reference reproduces: the exporter checks it with
        an agreement tolerance instead.)"""
        return None, "Keras"

    def flatbuffer(self, model, plan, *, threshold, length, fold=None, quantize=None):
        from keras_skim.export.graph_builder import build_module

        family_graph = exporter_of(plan.model_kind).builtin_graph(plan)
        if family_graph is not None:
            build_module = family_graph
        elif plan.stacked:  # several layers, or both directions
            from keras_skim.export.stack_graph import build_module
        elif takes_sequence(plan):  # float steps instead of token ids
            from keras_skim.export.sequence_graph import build_module
        return builtin_flatbuffer(build_module(plan, fold=fold), quantize=quantize)


def builtin_flatbuffer(module, quantize=None):
    """The .tflite bytes of a graph module converted to builtin ops only; ExportError (one line) when the
    converter fails or the graph needs any other op."""
    from keras_skim.export.graph_builder import convert
    from keras_skim.runtime.tflite_check import non_builtin_ops

    try:
        data = convert(module, quantize=quantize)
    except ExportError:
        raise
    except Exception as err:  # converter failures are long: keep the first line
        raise ExportError(f"TFLite conversion failed ({str(err).strip().splitlines()[0][:200]})") from None
    extra = non_builtin_ops(data)
    if extra:
        raise ExportError(f"the converted graph needs non-builtin ops: {', '.join(extra)}")
    return data
