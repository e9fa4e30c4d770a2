"""Cloze question answering (the Children's Book Test task of Seo et al., ICLR 2018, Table 5): `ClozeQA`, one
LSTM or skim reader (any `--cell` kind with a Keras layer) reading the query then the document and scoring
the candidates, its trainer and its `keras-skim train/evaluate --task cloze` commands. It reaches the cells
only through the model-kind table (`ModelKind.layer`, `skim_gate()`)."""
