"""The Skim-RNN family (Seo et al., ICLR 2018): everything that is Skim-RNN's alone.

Its cells and layers (`SkimLSTMCell`, `SkimGRUCell`, `SkimLSTM`, `SkimGRU`), the
threshold controls, the skim statistics and `SkimRate` metric, the Gumbel
temperature schedule, the per-layer report of stacked models, its emitters
(`skim_emitters`) and the pieces of its custom-op export (`skim_op_export`
and the `skim_op_*` modules it uses). Its kinds (`skim_lstm`, `skim_gru`)
are rows of `keras_skim.model_kinds`, which names these pieces; the engines
and the text classifier that trains them
(`keras_skim.models.text_classifier`) reach the cells through the skim gate
(`skim_gate`, the table's `skim_gate()`).
"""
