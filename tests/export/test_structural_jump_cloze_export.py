"""The Structural-Jump cloze reader's export (`structural_jump_cloze_export`): the query read in full, then
the document with the agents acting, scored against the candidates; the LiteRT graph against the Keras
model on random questions (punctuation and padding among them) with the agents free and forced."""

import numpy as np
import pytest

keras = pytest.importorskip("keras")
pytest.importorskip("tensorflow")

from keras_skim import contracts  # noqa: E402
from keras_skim.export.builtin_backend import builtin_flatbuffer  # noqa: E402
from keras_skim.export.task_parity import check_task_parity  # noqa: E402
from keras_skim.models.structural_jump.structural_jump_cloze_answer import QUERY_IDS  # noqa: E402
from keras_skim.models.structural_jump.structural_jump_cloze_export import EXPORTER  # noqa: E402
from keras_skim.models.structural_jump.structural_jump_lstm_cell import (  # noqa: E402
    NEXT_SENTENCE,
    READ,
    SKIP,
)
from keras_skim.runtime.interpreter_loader import make_interpreter  # noqa: E402
from tests.models.test_structural_jump_cloze_qa import _ids, _model  # noqa: E402


def _force(model, skip=None, jump=None):
    """Agent biases that make one action certain (None: the agent as initialised)."""
    for policy, action, size in ((model.cell.skip_policy, skip, 2), (model.cell.jump_policy, jump, 4)):
        if action is not None:
            policy.kernel.assign(np.zeros(policy.kernel.shape, np.float32))
            bias = np.full(size, -50.0, np.float32)
            bias[action] = 50.0
            policy.bias.assign(bias)


def _export(model):
    plan = EXPORTER.plan(model, None)
    flatbuffer = builtin_flatbuffer(EXPORTER.build_module(plan))
    signature = make_interpreter(model_content=flatbuffer, num_threads=1).get_signature_runner(contracts.SIGNATURE_KEY)
    return plan, signature


@pytest.mark.parametrize(
    ("skip", "jump", "codes"),
    [
        (None, None, None),  # the agents as initialised: whatever they decide, both sides decide it
        (READ, NEXT_SENTENCE, {contracts.TOKEN_READ, contracts.TOKEN_JUMPED}),
        (SKIP, None, {contracts.TOKEN_SKIMMED}),  # (a full reader's document loop is the classifier's, tested there)
    ],
)
def test_the_export_decides_and_scores_as_keras(skip, jump, codes):
    model = _model()
    model(_ids())
    _force(model, skip, jump)
    plan, signature = _export(model)
    samples = EXPORTER.parity_inputs(plan, 8)
    reference = EXPORTER.keras_reference(model, plan)
    parity = check_task_parity(model, lambda inputs, _: signature(**inputs), reference, samples, [None])
    assert parity.ok and parity.decisions > 0, parity.message
    found = set(np.concatenate([signature(**s)["read_mask"].ravel() for s in samples]).tolist())
    if codes is not None:
        assert codes <= found and not (found - codes - {contracts.TOKEN_NOT_A_WORD}), found
    if skip == SKIP:  # the whole document skipped: the query alone, read in full, moves the scores
        first = signature(**samples[0])
        assert int(first["read_count"][0]) == 0
        other = dict(samples[0], **{QUERY_IDS: (samples[0][QUERY_IDS] % 30 + 5).astype(np.int32)})
        assert not np.allclose(first["logits"], signature(**other)["logits"])
        np.testing.assert_allclose(signature(**other)["logits"], reference(other)["logits"], rtol=1e-5, atol=1e-5)
