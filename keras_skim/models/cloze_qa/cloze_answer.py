"""A cloze export's answer, without TensorFlow (`SkimRunner.answer` calls
`answer_cloze` through `model_kinds.TASKS["cloze"].answer`): the query, the
document and the candidates encoded as in training
(`datasets.cloze_splits.encode_question`), the export run once, the
candidates' probabilities the softmax of their scores."""

import dataclasses

import numpy as np

from keras_skim.datasets.cloze_splits import CANDIDATE_IDS, chosen_candidate, encode_question


@dataclasses.dataclass
class ClozeAnswer:
    """The answer of a cloze export to one question.

    Attributes:
        answer: The chosen candidate (as the caller gave it).
        index: Its index among the candidates.
        probabilities: float [K]: each candidate's probability.
        read_mask: int32 [T] over the query's tokens then the document's:
            1 = read by the big cell, 0 = skimmed.
    """

    answer: str
    index: int
    probabilities: np.ndarray
    read_mask: np.ndarray


def answer_cloze(runner, document, query, candidates, threshold=None):
    """The `ClozeAnswer` of a cloze export (`runner`: its `SkimRunner`).

    Args:
        document: The context: a string, or its sentences.
        query: The question, the missing word written as any placeholder.
        candidates: As many words as the export takes (`metadata.task["num_candidates"]`).

    Raises:
        ValueError: another number of candidates, or a question without a token.
    """
    task = runner.metadata.task
    candidates = list(candidates)
    if len(candidates) != task["num_candidates"]:
        raise ValueError(f"the export takes {task['num_candidates']} candidates; got {len(candidates)}")
    document = document if isinstance(document, str) else " ".join(document)
    ids, candidate_ids = encode_question(runner.tokenizer, query, document, candidates)
    ids = ids[: task.get("max_length")]
    if not len(ids):
        raise ValueError("the query and the document have no token")
    out = runner.run_inputs({"token_ids": ids, CANDIDATE_IDS: candidate_ids}, threshold)
    answer, index, probabilities = chosen_candidate(candidates, out["logits"])
    return ClozeAnswer(answer, index, probabilities, out["read_mask"].reshape(-1).astype(np.int32))
