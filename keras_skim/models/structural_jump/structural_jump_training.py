"""Two-phase training of Structural-Jump-LSTM, as the paper and its authors'
code do it:

1. full-read pretraining: every word read, the agents' logits pulled
   towards "read, next word"; the weights with the best validation
   accuracy are kept;
2. speed-read training: the agents act (sampled actions), the embedding is
   frozen, actor-critic losses on; the target weight delta decays from 0.1
   to 0.005 over the first half of the phase; the weights with the best
   validation reward are kept (the authors' selection rule), or, with a
   read budget, the most accurate validation within it, or (the default
   schedule) the least-read validation within one point of the full-read
   accuracy, the full reader itself when none gets there. Optionally the
   actor loss waits `critic_warmup_steps` steps for the critics (the
   code's `init_runs`, 0 in its runs).

One loop runs them, in steps (`structural_jump_steps.fit_structural_jump_steps`:
validation every N steps, a history of every validation, a checkpoint to
resume from) on a `StructuralJumpSchedule`; `fit_structural_jump` runs it on
a schedule whose lengths are given in epochs (validation once an epoch).

`train_structural_jump_model` (what `keras-skim train --cell sj-lstm` runs)
goes through the one training pipeline (`keras_skim.training.pipeline`:
data, tokenizer, GloVe, this family's `fit_structural_jump_model`, the model
folder `model.keras`, `tokenizer.json`, `train_config.json`), with the
settings of a `StructuralJumpTrainingConfig`.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import keras
import numpy as np

from keras_skim.models.structural_jump.length_bucketed_batches import LengthBucketedBatches
from keras_skim.models.structural_jump.structural_jump_config import training_arguments
from keras_skim.models.structural_jump.structural_jump_evaluation import evaluate_structural_jump

DEFAULT_MAX_LENGTH = {"imdb": 400, "rotten_tomatoes": 50}
# The paper: batch 32 for AG news, Rotten Tomatoes and SST, 100 for the rest.
DEFAULT_BATCH_SIZE = {"rotten_tomatoes": 32, "imdb": 100}


# The epoch trainer's schedule options (`StructuralJumpSchedule.in_epochs`) and their defaults there.
EPOCH_SCHEDULE_DEFAULTS = {
    "full_read_patience": 2,
    "speed_read_patience": None,
    "initial_entropy_weight": 0.1,
    "final_entropy_weight": 0.005,
    "entropy_decay_fraction": 0.5,
    "critic_warmup_steps": 0,
}
# The greedy validation scores of a step record, logged as Keras logs them ("val_" + name).
_VALIDATION_SCORES = ("accuracy", "read_fraction", "skip_fraction", "jump_fraction", "reward", "flop_r")


def fit_structural_jump(
    model, train, validation, full_read_epochs=3, speed_read_epochs=10, *, full_read_weights=None, **options
):
    """Runs both training phases on a built `StructuralJumpLSTM`, in epochs.

    The step loop (`structural_jump_steps.fit_structural_jump_steps`) on a
    schedule counted in epochs (`StructuralJumpSchedule.in_epochs`): one
    validation at the end of each epoch; phase 1 keeps the weights with the
    best validation accuracy, phase 2 those with the best validation reward
    (or, with a `read_budget`, the best accuracy among the epochs reading
    at most that fraction). Not resumable: no checkpoint is written.

    Args:
        model: a `keras_skim.StructuralJumpLSTM`.
        train, validation: `(token_ids, labels)` pairs of numpy arrays.
        full_read_epochs: epochs of phase 1 (0 skips it).
        speed_read_epochs: epochs of phase 2 (0 skips it).
        full_read_weights: optional `.weights.h5` path: written after
            phase 1, or, when phase 1 is skipped (`full_read_epochs=0`),
            loaded instead of running it (to rerun phase 2 alone; it must
            exist).
        **options: the schedule's, in epochs: `full_read_patience` (2;
            early stopping on validation accuracy in phase 1),
            `speed_read_patience` (None: never stop early; the best epoch
            is restored either way), `initial_entropy_weight` and
            `final_entropy_weight` (delta's range), `entropy_decay_fraction`
            (0.5: the share of phase 2's steps over which delta decays),
            `critic_warmup_steps` (0: steps at the start of phase 2 without
            the actor loss); and the fields of
            `structural_jump_steps.StepFitOptions` (`batch_size`,
            `learning_rate`, `speed_learning_rate`, `optimizer`,
            `speed_optimizer`, `read_budget`, `seed`, `verbose`).

    Returns:
        dict with `full_read` and `speed_read` entries (those that ran):
        `history` (per epoch, as Keras logs it: the training means and the
        greedy validation scores, `val_accuracy`, `val_read_fraction`, ...,
        and `entropy_weight`), `epochs_run`, `seconds`,
        `seconds_per_epoch`; `full_read` also has `validation_accuracy`,
        the full-read accuracy phase 2 starts from; `speed_read` has
        `selected_epoch` (1-based) and `selection`.
    """
    from keras_skim.models.structural_jump.structural_jump_schedule import StructuralJumpSchedule
    from keras_skim.models.structural_jump.structural_jump_steps import StepFitOptions, fit_structural_jump_steps

    schedule = {name: options.pop(name, default) for name, default in EPOCH_SCHEDULE_DEFAULTS.items()}
    fit = StepFitOptions(**options)
    steps_per_epoch = len(LengthBucketedBatches(*train, fit.batch_size, shuffle=True, seed=fit.seed))
    results = {}
    if full_read_epochs == 0 and full_read_weights:
        results["full_read"] = _loaded_full_read(model, validation, full_read_weights)
    for phase, epochs in (("full_read", full_read_epochs), ("speed_read", speed_read_epochs)):
        if not epochs:
            continue
        lengths = (epochs, 0) if phase == "full_read" else (0, epochs)
        phase_schedule = StructuralJumpSchedule.in_epochs(steps_per_epoch, *lengths, **schedule)
        run = fit_structural_jump_steps(model, train, validation, phase_schedule, **vars(fit))
        results[phase] = _in_epochs(run[phase], steps_per_epoch)
        if phase == "full_read" and full_read_weights:
            model.save_weights(full_read_weights)
    return results


def _loaded_full_read(model, validation, full_read_weights):
    """Phase 1's result from its saved weights (loaded into `model`)."""
    if not os.path.exists(full_read_weights):
        raise FileNotFoundError(
            f"{full_read_weights}: no full-read weights to start speed reading from "
            "(run phase 1 with full_read_epochs > 0 first)"
        )
    model.load_weights(full_read_weights)
    model.speed_reading = False
    accuracy = evaluate_structural_jump(model, *validation)["accuracy"]
    return {"loaded_from": os.fspath(full_read_weights), "epochs_run": 0, "validation_accuracy": accuracy}


def _in_epochs(summary, steps_per_epoch):
    """A phase of the step loop, validated once an epoch, told in epochs."""
    epochs = -(-summary["steps_run"] // steps_per_epoch)
    history = {}
    for record in summary["history"]:
        logs = {
            **record["train"],
            **{f"val_{name}": record[name] for name in _VALIDATION_SCORES},
            "entropy_weight": record["entropy_weight"],
        }
        for name, value in logs.items():
            history.setdefault(name, []).append(float(value))
    out = {
        "history": history,
        "epochs_run": epochs,
        "seconds": summary["seconds"],
        "seconds_per_epoch": summary["seconds"] / max(epochs, 1),
    }
    if "validation_accuracy" in summary:
        out["validation_accuracy"] = summary["validation_accuracy"]
    else:
        selected = summary["selected_step"]
        out["selected_epoch"] = None if selected is None else -(-selected // steps_per_epoch)
        out["selection"] = summary["selection"]
    return out


def load_dataset_splits(
    dataset,
    max_length=None,
    max_tokens=20000,
    limit=None,
    seed=0,
    validation_fraction=0.15,
    glove=True,
    embedding_dim=50,
):
    """The paper's splits of a named dataset, encoded with one tokenizer.

    IMDB: the 25,000 training reviews split (seeded) into train and
    `validation_fraction` validation, the 25,000 test reviews. Rotten
    Tomatoes: its own train / validation / test splits. The tokenizer is
    fitted on the training texts.

    Returns:
        `(data, tokenizer, embedding_matrix)`: `data` maps "train",
        "validation", "test" to `(token_ids, labels)`; the matrix is GloVe
        6B (`embedding_dim`) or None.
    """
    from keras_skim.datasets import Tokenizer, glove_embedding_matrix, load_text_dataset

    max_length = max_length or DEFAULT_MAX_LENGTH.get(dataset, 200)
    eval_limit = None if limit is None else max(limit // 4, 100)
    train_texts, train_labels = load_text_dataset(dataset, "train", limit=limit, seed=seed)
    train_labels = np.asarray(train_labels, np.int32)
    if dataset == "imdb":
        order = np.random.RandomState(seed).permutation(len(train_texts))
        held = np.sort(order[: int(round(len(order) * validation_fraction))])
        kept = np.sort(order[len(held) :])
        val_texts, val_labels = [train_texts[i] for i in held], train_labels[held]
        train_texts, train_labels = [train_texts[i] for i in kept], train_labels[kept]
    else:
        val_texts, val_labels = load_text_dataset(dataset, "validation", limit=eval_limit, seed=seed)
    test_texts, test_labels = load_text_dataset(dataset, "test", limit=eval_limit, seed=seed)
    tokenizer = Tokenizer(max_length=max_length).fit(train_texts, max_tokens=max_tokens)
    data = {
        split: (tokenizer.encode(texts, max_length=max_length), np.asarray(labels, np.int32))
        for split, texts, labels in (
            ("train", train_texts, train_labels),
            ("validation", val_texts, val_labels),
            ("test", test_texts, test_labels),
        )
    }
    matrix = glove_embedding_matrix(tokenizer.vocabulary, dim=embedding_dim, seed=seed) if glove else None
    return data, tokenizer, matrix


def _time_record(phases):
    """Epochs (epoch schedule) or steps (step schedule) run, and time per unit."""
    seconds = sum(p.get("seconds", 0.0) for p in phases.values())
    if any("steps_run" in p for p in phases.values()):
        steps = sum(p.get("steps_run", 0) for p in phases.values())
        return {"steps_run": steps, "seconds_per_step": seconds / steps if steps else 0.0}
    epochs = sum(p["epochs_run"] for p in phases.values())
    return {"epochs_run": epochs, "seconds_per_epoch": seconds / epochs if epochs else 0.0}


# The run's own options (not settings of the model, not recorded as such).
RUN_OPTIONS = ("force", "verbose", "run_dir", "resume", "restart", "max_steps")


def train_structural_jump(
    output_dir: str | os.PathLike[str] | None = None,
    dataset: str = "rotten_tomatoes",
    data: Any = None,
    tokenizer: Any = None,
    **options: Any,
) -> tuple[Any, dict[str, Any]]:
    """Trains a Structural-Jump-LSTM classifier and optionally writes its folder.

    The keyword form of `train_structural_jump_model`: `options` are the
    fields of a `StructuralJumpTrainingConfig` (`units`, `schedule`,
    `full_read_epochs`, ...), the run's options of
    `train_structural_jump_model` (`force`, `verbose`, `run_dir`,
    `resume`, `restart`, `max_steps`) and `embedding_matrix` (with `data`).

    Args:
        output_dir: model folder to write, or None to write nothing.
        dataset: a `--data` argument (a registry name such as
            "rotten_tomatoes" or "imdb", `tfds:NAME`, a .csv/.tsv/.jsonl
            file or a folder; see `keras_skim.datasets.registry`) or a
            source from `resolve_data`. Ignored when `data` is given. The
            paper's own IMDB split (85/15) is `load_dataset_splits`, passed
            in through `data`.
        data: instead of a dataset, a dict with `"train"`, `"validation"`
            and optionally `"test"`, each `(token_ids, labels)` encoded with
            `tokenizer` (which is then required); `embedding_matrix`: its
            initial word vectors.
        tokenizer: the `keras_skim.datasets.Tokenizer` of `data`.

    Returns:
        `(model, results)`, see `train_structural_jump_model`.
    """
    from keras_skim.models.structural_jump.structural_jump_config import StructuralJumpTrainingConfig
    from keras_skim.training import pipeline

    run = {name: options.pop(name) for name in RUN_OPTIONS if name in options}
    embedding_matrix = options.pop("embedding_matrix", None)
    config = StructuralJumpTrainingConfig(**options)
    if data is not None:
        dataset = pipeline.given_data(data, tokenizer, embedding_matrix)
    elif embedding_matrix is not None:
        raise ValueError("embedding_matrix goes with data=...; a dataset's word vectors are GloVe's (glove=True)")
    return train_structural_jump_model(dataset, config, output_dir, **run)


def train_structural_jump_model(
    data, config, output_dir=None, force=False, verbose=2, run_dir=None, resume=False, restart=False, max_steps=None
):
    """Trains the Structural-Jump-LSTM classifier `config` describes on
    `data` and optionally writes its folder; what `keras-skim train --cell
    sj-lstm` runs.

    Args:
        data: a `--data` argument or source (see `train_structural_jump`'s
            `dataset`: split as `keras-skim train` splits it for every cell,
            IMDB: 10% of the training reviews held out for validation), or
            splits the caller encoded (`pipeline.given_data`).
        config: a `StructuralJumpTrainingConfig`.
        output_dir: model folder to write (`model.keras`, `tokenizer.json`,
            `train_config.json`, through `output_folder.staged_output_dir`),
            or None to write nothing.
        force: replace an existing `output_dir` that keras-skim wrote.
        verbose: the fit's verbosity.
        run_dir: with a schedule, the folder of the run's checkpoint;
            default: `<cache>/runs/<name of output_dir>-<hash of its path>`
            (`run_checkpoint.runs_root`) when `output_dir` is given, else
            no checkpoint.
        resume: continue the run from its checkpoint (same settings).
        restart: discard the run's checkpoint and start over.
        max_steps: stop after this many steps in this call (checkpoint
            written; `TrainingInterrupted` raised).

    Returns:
        `(model, results)`; `results` is the `train_config.json` record:
        `arguments` (`training_arguments`: the settings, with the resolved
        `dataset`, `max_length` and `batch_size`), `data` (the source, its
        classes and split, when trained on a dataset), both phases'
        histories and timings, `seconds_per_epoch` and `epochs_run` (or
        `seconds_per_step` and `steps_run`), the full-read validation
        accuracy, the greedy `validation` and `test` results of
        `evaluate_structural_jump` (accuracy, read / skip / jump fractions,
        Flop-r, mean reward), and `speed_reading`: whether the speed reader
        or the full reader was kept (`"kept"`: "speed-read" or
        "full-reader"), `why`, both validation accuracies and read
        fractions and the `line` that says it
        (`structural_jump_selection.speed_reading_record`).

    Raises:
        contracts.OutputRefused: `output_dir` may not be written (exists
            without `force`, or is not keras-skim's).
        DataSourceError, DatasetUnavailableError: unusable data (one line).
        RunExists, CheckpointMismatch, TrainingInterrupted: see
            `fit_structural_jump_steps`.
    """
    from keras_skim.training import pipeline

    if config.schedule is not None and run_dir is None and output_dir is not None:
        from keras_skim.training.run_checkpoint import default_run_name, runs_root

        run_dir = os.path.join(runs_root(), default_run_name(output_dir))

    def prepare():
        keras.utils.set_random_seed(config.seed)
        resolved, encoded = _encoded(data, config)
        return encoded, resolved, training_arguments(output_dir, resolved_spec(data, encoded), resolved, run_dir)

    # The step loop writes a checkpoint on SIGINT/SIGTERM: the folder is staged after it.
    return pipeline.train_model(
        None if output_dir is None else os.fspath(output_dir),
        "structural_jump_lstm",
        None if isinstance(data, pipeline.TrainingData) else data,
        prepare,
        force=force,
        verbose=verbose,
        stage_early=False,
        run_dir=run_dir,
        resume=resume,
        restart=restart,
        max_steps=max_steps,
    )


def resolved_spec(data, encoded):
    """The recorded `dataset`: the source's spec, None for encoded data."""
    return None if encoded.source is None else encoded.source.spec


def _encoded(data, config):
    """(the config with the data's length and batch size filled in, the `TrainingData`)."""
    from keras_skim.training import pipeline

    if isinstance(data, pipeline.TrainingData):
        return dataclasses.replace(config, max_length=data.max_length, batch_size=config.batch_size or 32), data
    source = pipeline.resolve_source(data, config.split_seed)
    resolved = dataclasses.replace(
        config,
        max_length=config.max_length or source.default_max_length,
        batch_size=config.batch_size or DEFAULT_BATCH_SIZE.get(source.spec, 32),
    )
    encoded = pipeline.encode_source(
        source, resolved.max_length, config.max_tokens, config.limit, config.seed, config.glove, config.embedding_dim
    )
    return resolved, encoded


def fit_structural_jump_model(data, config, verbose, run_dir=None, resume=False, restart=False, max_steps=None):
    """The family's trainer (`keras_skim.model_kinds`): builds the
    `StructuralJumpLSTM` that `config` describes, runs both phases on
    `data` (a `pipeline.TrainingData`) in epochs or on the schedule in
    steps, and evaluates the greedy policy; returns (model, its
    train_config.json record)."""
    model = _build_model(data, config)
    common = dict(
        batch_size=config.batch_size,
        learning_rate=config.learning_rate,
        speed_learning_rate=config.speed_learning_rate,
        optimizer=config.optimizer,
        speed_optimizer=config.speed_optimizer,
        seed=config.seed,
        verbose=verbose,
        **(config.fit_options or {}),
    )
    splits = data.splits
    record = {}
    if config.schedule is None:
        phases = fit_structural_jump(
            model,
            splits["train"],
            splits["validation"],
            full_read_epochs=config.full_read_epochs,
            speed_read_epochs=config.speed_read_epochs,
            **common,
        )
    else:
        from keras_skim.models.structural_jump.structural_jump_steps import fit_structural_jump_steps

        phases = fit_structural_jump_steps(
            model,
            splits["train"],
            splits["validation"],
            config.schedule,
            run_dir=run_dir,
            resume=resume,
            restart=restart,
            max_steps=max_steps,
            phase_end_data={"test": splits["test"]} if "test" in splits else None,
            **common,
        )
        record.update(_step_history(phases, run_dir))
    record.update(phases=phases, **_time_record(phases))
    if "full_read" in phases:
        record["full_read_validation_accuracy"] = phases["full_read"]["validation_accuracy"]
    record.update(_evaluation_record(model, data, config))
    record["speed_reading"] = _speed_reading(phases, record)
    return model, record


def _speed_reading(phases, record):
    """The kept model against the full reader (`speed_reading_record`): which
    one was kept, why, both validation accuracies and read fractions."""
    from keras_skim.models.structural_jump.structural_jump_selection import speed_reading_record

    speed = phases.get("speed_read")
    if speed is None:
        outcome = {"kept": "full-reader", "why": "no speed-read phase ran"}
    else:
        # The epoch schedule (and a floorless step schedule) keeps by its rule, with no fallback.
        outcome = speed.get("speed_reading") or {"kept": "speed-read", "why": speed["selection"]}
    out = speed_reading_record(
        record.get("full_read_validation_accuracy"), record["validation"], outcome["kept"], outcome["why"]
    )
    if "floor" in outcome:
        out["floor"] = outcome["floor"]
    return out


def _build_model(data, config):
    """The `StructuralJumpLSTM` of `config`, built for `data`, its embedding set."""
    from keras_skim.models.structural_jump.structural_jump_config import merged_model_options
    from keras_skim.models.structural_jump.structural_jump_lstm import StructuralJumpLSTM
    from keras_skim.models.structural_jump.text_structure import punctuation_ids

    model = StructuralJumpLSTM(
        data.tokenizer.vocabulary_size,
        **punctuation_ids(data.tokenizer.vocabulary),
        num_classes=max(data.num_classes, 2),
        embedding_dim=config.embedding_dim,
        units=config.units,
        agent_units=config.agent_units,
        seed=config.seed,
        **merged_model_options(config.model_options, config.schedule),
    )
    model.build((None, data.max_length))
    if data.embedding_matrix is not None:
        model.set_embedding_matrix(np.asarray(data.embedding_matrix, np.float32))
    return model


def _step_history(phases, run_dir):
    """The step loop's history of every validation (taken out of `phases`), and its plot."""
    record = {"history": phases.pop("history")}
    phases.pop("run_dir")
    if run_dir is not None and record["history"]:
        from keras_skim.models.structural_jump.structural_jump_history_plot import plot_structural_jump_history

        record["history_plot"] = plot_structural_jump_history(record["history"], os.path.join(run_dir, "history.png"))
    return record


def _evaluation_record(model, data, config):
    """The greedy policy's validation (and test) results, the FLOP counts and what the run was."""
    from keras_skim.models.structural_jump.structural_jump_flops import structural_jump_step_flops
    from keras_skim.models.structural_jump.text_structure import punctuation_ids
    from keras_skim.training.pipeline import versions

    splits, tokenizer = data.splits, data.tokenizer
    record = {"validation": evaluate_structural_jump(model, *splits["validation"])}
    if "test" in splits:
        record["test"] = evaluate_structural_jump(model, *splits["test"])
    record.update(
        flops=structural_jump_step_flops(config.units, config.embedding_dim, config.agent_units),
        train_examples=int(len(splits["train"][1])),
        vocabulary_size=tokenizer.vocabulary_size,
        punctuation_ids=punctuation_ids(tokenizer.vocabulary),
        versions=versions(),
    )
    return record
