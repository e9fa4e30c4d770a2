"""The Skim-RNN family (Seo et al., ICLR 2018): everything that is Skim-RNN's alone.

Its cells and layers (`SkimLSTMCell`, `SkimGRUCell`, `SkimLSTM`, `SkimGRU`), the
threshold controls, the skim statistics and `SkimRate` metric, the Gumbel
temperature schedule, the per-layer report of stacked models, and the pieces
of its custom-op export (`skim_op_*`). Its kinds (`skim_lstm`, `skim_gru`)
are rows of `keras_skim.model_kinds`; the text classifier that trains them
lives in `keras_skim.models.text_classifier`.
"""
