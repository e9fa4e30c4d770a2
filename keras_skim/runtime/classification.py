"""`Classification`: what `SkimRunner.classify` gives for one text."""

import numpy as np


class Classification(tuple):
    """(probabilities, read_mask, tokens) of one text, with the names of
    its classes: unpacks as the three-tuple `classify` always gave, and
    `label` is the predicted class's name (the training data's, recorded
    in the export's metadata; "class i" for an export without them).

    Attributes:
        probabilities: float array, one per class (a single sigmoid logit
            gives two).
        read_mask: int array, per token a `keras_skim.contracts.TOKEN_*` code.
        tokens: the tokens of the text the model saw.
        class_names: the name of every class.
        predicted: index of the most likely class.
        label: its name.
    """

    def __new__(cls, probabilities, read_mask, tokens, metadata):
        self = super().__new__(cls, (probabilities, read_mask, tokens))
        self.class_names = [metadata.class_name(i) for i in range(len(probabilities))]
        return self

    probabilities = property(lambda self: self[0])
    read_mask = property(lambda self: self[1])
    tokens = property(lambda self: self[2])

    @property
    def predicted(self):
        return int(np.argmax(self.probabilities))

    @property
    def label(self):
        return self.class_names[self.predicted]
