"""Models: what each model family builds from the cells of `keras_skim.layers`.

One module (or folder) per family, keras-hub style, named after it: the text
classifier (`text_classifier.build_text_classifier`: embedding, one
recurrent layer, logits) and each family that is a `keras.Model` class of
its own, with its loss beside it. The model-kind table
(`keras_skim.model_kinds`) says which kinds each family has and where its
trainer, exporter and commands live.

Models import cells, never training (`tests/test_import_graph.py`).
"""

# Public model classes (`keras_skim.models.ClozeQA`): the task table's (`keras_skim.model_kinds.TASKS`,
# `model_classes`), imported on first use through the table, so that `keras_skim.models` imports no family
# (tests/test_import_graph.py) and no Keras.


def __getattr__(name):
    from keras_skim.model_kinds import TASKS, load

    for task in TASKS.values():
        for path in task.model_classes:
            if path.endswith(f":{name}"):
                return load(path)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
