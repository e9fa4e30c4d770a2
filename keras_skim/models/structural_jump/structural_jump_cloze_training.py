"""Training and evaluating `StructuralJumpClozeQA` on CBT-format files (`keras_skim.datasets.cloze_files`),
what `keras-skim train --task cloze --model sj-lstm` runs.

The family's two phases (`structural_jump_steps.fit_structural_jump_steps`, resumable from its checkpoint),
with the paper's CBT settings: LSTM 128, RMSprop 0.001, the embedding (GloVe) fixed in both phases. A model
folder holds `model.keras`, `tokenizer.json` and `cloze_config.json` (the settings, the phases' histories
and the greedy validation and test results).
"""

import dataclasses
import json
import os

import numpy as np

from keras_skim.datasets.cloze_splits import encode_query_and_context, load_splits, question_text
from keras_skim.datasets.tokenizer import Tokenizer
from keras_skim.models.structural_jump.structural_jump_evaluation import evaluate_structural_jump
from keras_skim.models.structural_jump.structural_jump_schedule import StructuralJumpSchedule

CONFIG_FILE = "cloze_config.json"
MODEL_FILE = "model.keras"
TOKENIZER_FILE = "tokenizer.json"


@dataclasses.dataclass(frozen=True)
class StructuralJumpClozeConfig:
    """The settings of `train_structural_jump_cloze`.

    Attributes:
        units, agent_units, embedding_dim: m, a and d (the paper: 128, 25, GloVe's d).
        glove: the embedding starts from GloVe 6B (`embedding_dim`), else random; fixed either way.
        batch_size, learning_rate: of both phases (the paper's RMSprop, 0.001 for CBT).
        query_length, max_length: tokens kept of the query and of the document.
        max_tokens: vocabulary size.
        limit: train on at most this many questions (None: all).
        seed: seed of the weights, the noise, the batch order and the held-out split.
        read_budget: phase 2 keeps the most accurate validation reading at most this fraction (None: the
            schedule's rule).
        schedule: the `StructuralJumpSchedule` (None: the "default" preset).
    """

    units: int = 128
    agent_units: int = 25
    embedding_dim: int = 50
    glove: bool = True
    batch_size: int = 32
    learning_rate: float = 1e-3
    query_length: int = 64
    max_length: int = 600
    max_tokens: int = 30000
    limit: int = None
    seed: int = 0
    read_budget: float = None
    schedule: StructuralJumpSchedule = None


def encode_cloze(examples, tokenizer, config):
    """`(packed ids, labels)` of CBT examples for a `StructuralJumpClozeQA` (`pack_cloze_ids`)."""
    from keras_skim.models.structural_jump.structural_jump_cloze_qa import pack_cloze_ids

    query, context, candidates, labels = encode_query_and_context(
        examples, tokenizer, config["query_length"], config["max_length"]
    )
    return pack_cloze_ids(candidates, query, context), labels


def build_structural_jump_cloze(config, tokenizer, num_candidates):
    """The `StructuralJumpClozeQA` of `config` for `tokenizer`'s vocabulary, its embedding set."""
    import keras

    from keras_skim.datasets import glove_embedding_matrix
    from keras_skim.models.structural_jump.structural_jump_cloze_qa import StructuralJumpClozeQA
    from keras_skim.models.structural_jump.text_structure import punctuation_ids

    keras.utils.set_random_seed(config.seed)
    model = StructuralJumpClozeQA(
        tokenizer.vocabulary_size,
        **punctuation_ids(tokenizer.vocabulary),
        num_candidates=num_candidates,
        query_length=config.query_length,
        embedding_dim=config.embedding_dim,
        units=config.units,
        agent_units=config.agent_units,
        rolling_weight=_rolling_weight(config.schedule),
        seed=config.seed,
    )
    if config.glove:
        matrix = glove_embedding_matrix(tokenizer.vocabulary, dim=config.embedding_dim, seed=config.seed)
        model.set_embedding_matrix(np.asarray(matrix, np.float32))
    return model


def _rolling_weight(schedule):
    """The schedule's reward weight w where it sets one, else the paper's 0.1."""
    return 0.1 if schedule is None or schedule.rolling_weight is None else schedule.rolling_weight


def train_structural_jump_cloze(path, config, output, run_dir=None, resume=False, restart=False, verbose=1):
    """Trains a `StructuralJumpClozeQA` on a CBT-format file and writes its model folder (`output`).

    Args:
        path: the training file (its `_valid`/`_test` siblings are the other splits, else a held-out 10% /
            10% of it, `cloze_splits.load_splits`).
        config: a `StructuralJumpClozeConfig`.
        output: the folder to write (created).
        run_dir, resume, restart: the step loop's checkpoint (`fit_structural_jump_steps`).
        verbose: 0 silent, 1 a line per validation.

    Returns:
        The results written to `cloze_config.json`: the config, the questions per split, the phases
        (histories, kept steps, the full reader's test accuracy), the greedy `validation` and `test`
        results of `evaluate_structural_jump` (accuracy, read / skip / jump fractions of the document
        words, Flop-r, reward).

    Raises:
        ValueError: an unusable file (one line); the step loop's `CheckpointError`, `TrainingInterrupted`.
    """
    from keras_skim.models.structural_jump.structural_jump_steps import fit_structural_jump_steps

    schedule = config.schedule or StructuralJumpSchedule.preset("default")
    splits = load_splits(path, config.seed, config.limit)
    tokenizer = Tokenizer().fit([question_text(e) for e in splits["train"]], max_tokens=config.max_tokens)
    settings = dataclasses.asdict(dataclasses.replace(config, schedule=None))
    data = {name: encode_cloze(examples, tokenizer, settings) for name, examples in splits.items()}
    model = build_structural_jump_cloze(config, tokenizer, len(splits["train"][0].candidates))
    phases = fit_structural_jump_steps(
        model,
        data["train"],
        data["validation"],
        schedule,
        batch_size=config.batch_size,
        learning_rate=config.learning_rate,
        speed_learning_rate=config.learning_rate,
        read_budget=config.read_budget,
        seed=config.seed,
        run_dir=run_dir,
        resume=resume,
        restart=restart,
        phase_end_data={"test": data["test"]},
        verbose=verbose,
    )
    phases.pop("history")
    results = {
        "data": str(path),
        "config": {**settings, "schedule": schedule.to_dict()},
        "questions": {name: len(examples) for name, examples in splits.items()},
        "phases": {**phases, "run_dir": None if run_dir is None else os.fspath(run_dir)},
        "validation": _summary(evaluate_structural_jump(model, *data["validation"])),
        "test": _summary(evaluate_structural_jump(model, *data["test"])),
    }
    save_folder(output, model, tokenizer, results)
    return results


def _summary(scores):
    """The scalar results of `evaluate_structural_jump` (no per-document arrays)."""
    keep = ("accuracy", "read_fraction", "skip_fraction", "jump_fraction", "per_document", "flop_r", "reward")
    return {name: scores[name] for name in (*keep, "examples", "words")}


def save_folder(output, model, tokenizer, results):
    os.makedirs(output, exist_ok=True)
    model.save(os.path.join(output, MODEL_FILE))
    tokenizer.save(os.path.join(output, TOKENIZER_FILE))
    with open(os.path.join(output, CONFIG_FILE), "w", encoding="utf-8") as out:
        json.dump(results, out, indent=2, default=_plain)


def _plain(value):
    """NumPy scalars and arrays in the results, as JSON numbers and lists."""
    return value.tolist() if hasattr(value, "tolist") else str(value)


def load_folder(folder):
    """(model, tokenizer, results) of a folder `train_structural_jump_cloze` wrote."""
    import keras

    # Imported for their registration: a fresh process must know the model's and its optimizer's classes.
    from keras_skim.models.structural_jump.per_tensor_clip_rmsprop import PerTensorClipRMSprop  # noqa: F401
    from keras_skim.models.structural_jump.structural_jump_cloze_qa import StructuralJumpClozeQA  # noqa: F401

    model = keras.saving.load_model(os.path.join(folder, MODEL_FILE))
    tokenizer = Tokenizer.load(os.path.join(folder, TOKENIZER_FILE))
    with open(os.path.join(folder, CONFIG_FILE), encoding="utf-8") as f:
        return model, tokenizer, json.load(f)
