"""Span question answering (SQuAD v1.1): a reader picks the answer's first and
last context token. `LSTMAttentionQA` (Seo et al. 2018, Appendix A.1) and `BiDAF`
(Seo et al. 2017), each with LSTM or skim reading layers of any kind, the
SQuAD metrics and the commands of `keras-skim train --task squad`. The family
reaches the skim cells only through the model-kind table
(`keras_skim.model_kinds`: `ModelKind.layer`, `skim_gate()`)."""
