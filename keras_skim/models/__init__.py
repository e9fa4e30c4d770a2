"""Models: what each model family builds from the cells of `keras_skim.layers`.

One module (or folder) per family, keras-hub style, named after it: the text
classifier (`text_classifier.build_text_classifier`: embedding, one
recurrent layer, logits) and each family that is a `keras.Model` class of
its own, with its loss beside it. The model-kind table
(`keras_skim.model_kinds`) says which kinds each family has and where its
trainer, exporter and commands live.

Models import cells, never training (`tests/test_import_graph.py`).
"""


def __getattr__(name):
    # The tasks' models (`keras_skim.models.<Class>`) and their pieces are imported on first use, through the
    # model-kind table: `import keras_skim.models` stays free of Keras, and this index names no family.
    from keras_skim.model_kinds import load, task_public_names

    path = task_public_names().get(name)
    if path is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return load(path)


def __dir__():
    from keras_skim.model_kinds import task_public_names

    return sorted([*globals(), *task_public_names()])
