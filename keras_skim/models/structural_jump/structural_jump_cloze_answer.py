"""A Structural-Jump cloze export's answer, without TensorFlow (`SkimRunner.answer` calls
`answer_structural_jump_cloze` through `model_kinds.TASKS["cloze"].model_answers`): the document,
the query and the candidates encoded as in training (`datasets.cloze_splits.encode_query_and_context`),
the export run once, the candidates' probabilities the softmax of their scores."""

import dataclasses

import numpy as np

from keras_skim.datasets.cloze_splits import CANDIDATE_IDS, candidate_ids, chosen_candidate

MODEL = "sj-lstm"  # the cloze task's `--model` value of this reader (the export's `task["model"]`)
QUERY_IDS = "query_ids"  # the export's query input; the document is `token_ids`


@dataclasses.dataclass
class StructuralJumpClozeAnswer:
    """The answer of a Structural-Jump cloze export to one question.

    Attributes:
        answer: The chosen candidate (as the caller gave it).
        index: Its index among the candidates.
        probabilities: float [K]: each candidate's probability.
        read_mask: int32 [T] over the document's tokens (the query is read in full): 1 = read,
            0 = skipped, 2 = jumped over, 3 = not a word (punctuation).
    """

    answer: str
    index: int
    probabilities: np.ndarray
    read_mask: np.ndarray


def _ids(tokenizer, text, length):
    ids = tokenizer.encode_one(text)
    return ids[ids != 0][:length].astype(np.int32)


def answer_structural_jump_cloze(runner, document, query, candidates, threshold=None):
    """The `StructuralJumpClozeAnswer` of a Structural-Jump cloze export (`runner`: its `SkimRunner`).

    Args:
        document: The context: a string, or its sentences.
        query: The question, the missing word written as any placeholder.
        candidates: As many words as the export takes (`metadata.task["num_candidates"]`).
        threshold: Must be None: the agents decide what is read.

    Raises:
        ValueError: another number of candidates, a threshold, or a query or document without a token.
    """
    task = runner.metadata.task
    candidates = list(candidates)
    if len(candidates) != task["num_candidates"]:
        raise ValueError(f"the export takes {task['num_candidates']} candidates; got {len(candidates)}")
    if threshold is not None:
        raise ValueError("a Structural-Jump-LSTM export takes no threshold: its agents decide what is read")
    document = document if isinstance(document, str) else " ".join(document)
    inputs = {
        "token_ids": _ids(runner.tokenizer, document, task.get("max_length")),
        QUERY_IDS: _ids(runner.tokenizer, query, task.get("query_length")),
        CANDIDATE_IDS: candidate_ids(runner.tokenizer, candidates),
    }
    for name, what in (("token_ids", "document"), (QUERY_IDS, "query")):
        if not len(inputs[name]):
            raise ValueError(f"the {what} has no token")
    out = runner.run_inputs(inputs)
    answer, index, probabilities = chosen_candidate(candidates, out["logits"])
    return StructuralJumpClozeAnswer(answer, index, probabilities, out["read_mask"].reshape(-1).astype(np.int32))
