"""The Structural-Jump-LSTM family (Hansen et al., ICLR 2019): everything that is its alone.

The cell, its text structure layer and the `keras.Model` with its
actor-critic loss; its optimizer and callbacks; its training schedule in
steps, selection and resumable trainer; its FLOP count and reading
statistics; its exporter pieces (builtin graph, `KerasSjLSTM` op binding,
metadata, parity) and its `keras-skim` command options. Its row in
`keras_skim.model_kinds.FAMILIES` is the only place outside this folder that
names it (`tests/test_family_names.py`).
"""
