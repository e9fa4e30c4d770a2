"""What each reading layer of a span reader read and skimmed, token by token
(`keras-skim show FOLDER --context ... --question ...`, Figure 6 of the skim
paper: the second layer skims more)."""

import numpy as np

from keras_skim.model_kinds import skim_gate

DIRECTIONS = ("forward", "backward")


def reading_masks(model, context_ids, question_ids, threshold=None):
    """The answer's logits and {(reader, direction): int array (T,), 1 = read,
    0 = skimmed} of one example (ids without padding), a layer without a skim
    gate reading every token.

    Each skim direction's cell runs step by step on the sequences that reach
    its layer (as the layer runs them, the backward one from the last token),
    and its bookkeeping state gives each step's decision.
    """
    seen = []
    inputs = (np.asarray(context_ids, np.int32)[None], np.asarray(question_ids, np.int32)[None])
    start, end, _ = model.read(inputs, training=False, seen=seen)
    gate = skim_gate()
    masks = {}
    with gate.thresholds_set_to(gate.gated_cells(model), threshold):
        for name, reader, features in zip(model.READERS, model.readers, seen):
            features = np.asarray(features)
            for direction, layer in zip(DIRECTIONS, (reader.forward_layer, reader.backward_layer)):
                masks[(name, direction)] = _decisions(gate, layer, features, direction == "backward")
    return np.asarray(start)[0], np.asarray(end)[0], masks


def _decisions(gate, layer, features, backwards):
    length = features.shape[1]
    cell = getattr(layer, "cell", None)
    if cell is None or not gate.is_gated(cell):
        return np.ones(length, np.int32)
    states = cell.get_initial_state(batch_size=1)
    found = []
    for t in range(length - 1, -1, -1) if backwards else range(length):
        _, states = cell(features[:, t, :], states, training=False)
        found.append(int(np.asarray(gate.read_decision(states)) >= 0.5))
    return np.asarray(found[::-1] if backwards else found, np.int32)
