"""Models: what each model family builds from the cells of `keras_skim.layers`.

One module (or folder) per family, keras-hub style, named after it: the text
classifier (`text_classifier.build_text_classifier`: embedding, one
recurrent layer, logits) and each family that is a `keras.Model` class of
its own, with its loss beside it. The model-kind table
(`keras_skim.model_kinds`) says which kinds each family has and where its
trainer, exporter and commands live.

Models import cells, never training (`tests/test_import_graph.py`).
"""
