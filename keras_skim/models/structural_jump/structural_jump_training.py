"""Two-phase training of Structural-Jump-LSTM, as the paper and its authors'
code do it, with plain `model.fit`:

1. full-read pretraining: every word read, the agents' logits pulled
   towards "read, next word"; the weights with the best validation
   accuracy are kept;
2. speed-read training: the agents act (sampled actions), the embedding is
   frozen, actor-critic losses on; the target weight delta decays from 0.1
   to 0.005 over the first half of the phase; the weights with the best
   validation reward are kept (the authors' selection rule), or, with a
   read budget, the most accurate epoch within it. Optionally the actor
   loss waits `critic_warmup_steps` steps for the critics (the code's
   `init_runs`, 0 in its runs).

`fit_structural_jump` runs the phases in epochs; with a schedule in steps
(`StructuralJumpSchedule`), `train_structural_jump` runs them with
`structural_jump_steps.fit_structural_jump_steps` instead: validation every
N steps, a history of every validation, and a checkpoint to resume from.

`train_structural_jump` (what `keras-skim train --cell sj-lstm` runs) goes
through the one training pipeline (`keras_skim.training.pipeline`: data,
tokenizer, GloVe, this family's `fit_structural_jump_model`, the model
folder `model.keras`, `tokenizer.json`, `train_config.json`).
"""

import dataclasses
import os
import time

import keras
import numpy as np

# Re-exported: the pieces the step loop (`structural_jump_steps`) shares with the epoch loop.
from keras_skim.models.structural_jump.length_bucketed_batches import LengthBucketedBatches
from keras_skim.models.structural_jump.structural_jump_config import training_arguments
from keras_skim.models.structural_jump.structural_jump_evaluation import evaluate_structural_jump
from keras_skim.models.structural_jump.structural_jump_optimizers import make_optimizer

DEFAULT_MAX_LENGTH = {"imdb": 400, "rotten_tomatoes": 50}
# The paper: batch 32 for AG news, Rotten Tomatoes and SST, 100 for the rest.
DEFAULT_BATCH_SIZE = {"rotten_tomatoes": 32, "imdb": 100}


def _history(history):
    return {k: [float(v) for v in vs] for k, vs in history.history.items()}


def fit_structural_jump(
    model,
    train,
    validation,
    full_read_epochs=3,
    speed_read_epochs=10,
    batch_size=32,
    learning_rate=5e-4,
    speed_learning_rate=5e-4,
    optimizer="rmsprop_tf1",
    speed_optimizer=None,
    initial_entropy_weight=0.1,
    final_entropy_weight=0.005,
    entropy_decay_fraction=0.5,
    full_read_patience=2,
    speed_read_patience=None,
    speed_read_monitor="val_reward",
    read_budget=None,
    critic_warmup_steps=0,
    seed=0,
    verbose=2,
    callbacks=(),
    full_read_weights=None,
):
    """Runs both training phases on a built `StructuralJumpLSTM`.

    Args:
        model: a `keras_skim.StructuralJumpLSTM`.
        train, validation: `(token_ids, labels)` pairs of numpy arrays.
        full_read_epochs: epochs of phase 1 (0 skips it).
        speed_read_epochs: epochs of phase 2 (0 skips it).
        batch_size: documents per batch.
        learning_rate, speed_learning_rate: of phases 1 and 2 (the paper's
            0.0005 for both).
        optimizer: phase 1's, see `make_optimizer`; a fresh one per phase.
        speed_optimizer: phase 2's; defaults to `optimizer`.
        initial_entropy_weight, final_entropy_weight: delta's range.
        entropy_decay_fraction: the share of phase 2's steps over which
            delta decays (the code: half).
        full_read_patience: early stopping on validation accuracy in phase 1.
        speed_read_patience: early stopping in phase 2 (None: never stop
            early; the best epoch is restored either way).
        speed_read_monitor: the validation log that picks phase 2's best
            epoch ("val_reward", the code's rule, or "val_accuracy").
        critic_warmup_steps: steps at the start of phase 2 without the
            actor loss (`CriticWarmup`; the code's `init_runs`, 0).
        read_budget: if set, phase 2 keeps instead the epoch with the best
            validation accuracy among those whose greedy validation read
            fraction is at most this (`ReadBudgetCheckpoint`).
        seed: seed of the batch order.
        verbose: `fit`'s verbosity.
        callbacks: extra callbacks for both phases.
        full_read_weights: optional `.weights.h5` path: written after
            phase 1, or, when phase 1 is skipped (`full_read_epochs=0`),
            loaded instead of running it (to rerun phase 2 alone; it must
            exist).

    Returns:
        dict with `full_read` and `speed_read` entries: `history`,
        `epochs_run`, `seconds`, `seconds_per_epoch`; `full_read` also has
        `validation_accuracy`, the full-read accuracy phase 2 starts from;
        `speed_read` has `selected_epoch` (1-based) and `selection`.
    """
    from keras_skim.models.structural_jump.critic_warmup import CriticWarmup
    from keras_skim.models.structural_jump.entropy_weight_decay import EntropyWeightDecay
    from keras_skim.models.structural_jump.read_budget_checkpoint import ReadBudgetCheckpoint

    train_batches = LengthBucketedBatches(*train, batch_size, shuffle=True, seed=seed)
    validation_batches = LengthBucketedBatches(*validation, batch_size, shuffle=False)
    results = {}
    train_embedding = model.embedding.trainable

    if full_read_epochs:
        model.speed_reading = False
        model.entropy_weight = initial_entropy_weight
        model.embedding.trainable = train_embedding
        model.compile(make_optimizer(optimizer, learning_rate))
        stop = keras.callbacks.EarlyStopping(
            monitor="val_accuracy", mode="max", patience=full_read_patience, restore_best_weights=True
        )
        started = time.perf_counter()
        history = model.fit(
            train_batches,
            validation_data=validation_batches,
            epochs=full_read_epochs,
            callbacks=[stop, *callbacks],
            verbose=verbose,
        )
        seconds = time.perf_counter() - started
        epochs = len(history.history["loss"])
        results["full_read"] = {
            "history": _history(history),
            "epochs_run": epochs,
            "seconds": seconds,
            "seconds_per_epoch": seconds / epochs,
        }
        if full_read_weights:
            model.save_weights(full_read_weights)
    elif full_read_weights:
        if not os.path.exists(full_read_weights):
            raise FileNotFoundError(
                f"{full_read_weights}: no full-read weights to start speed reading from "
                "(run phase 1 with full_read_epochs > 0 first)"
            )
        model.load_weights(full_read_weights)
        model.compile(make_optimizer(optimizer, learning_rate))
        results["full_read"] = {"loaded_from": os.fspath(full_read_weights), "epochs_run": 0}
    if "full_read" in results:
        model.speed_reading = False
        logs = model.evaluate(validation_batches, verbose=0, return_dict=True)
        results["full_read"]["validation_accuracy"] = float(logs["accuracy"])

    if speed_read_epochs:
        model.speed_reading = True
        model.entropy_weight = initial_entropy_weight
        model.embedding.trainable = False
        model.compile(make_optimizer(speed_optimizer or optimizer, speed_learning_rate))
        steps = speed_read_epochs * len(train_batches)
        decay = EntropyWeightDecay(
            max(int(steps * entropy_decay_fraction), 1),
            initial=initial_entropy_weight,
            final=final_entropy_weight,
        )
        if read_budget is None:
            select = keras.callbacks.EarlyStopping(
                monitor=speed_read_monitor,
                mode="max",
                patience=speed_read_patience or speed_read_epochs,
                restore_best_weights=True,
            )
            selection = f"best {speed_read_monitor}"
        else:
            select = ReadBudgetCheckpoint(read_budget)
            selection = f"best val_accuracy with val_read_fraction <= {read_budget}"
        started = time.perf_counter()
        history = model.fit(
            train_batches,
            validation_data=validation_batches,
            epochs=speed_read_epochs,
            callbacks=[decay, CriticWarmup(critic_warmup_steps), select, *callbacks],
            verbose=verbose,
        )
        seconds = time.perf_counter() - started
        epochs = len(history.history["loss"])
        if read_budget is None:
            selected = int(np.argmax(history.history[speed_read_monitor]))
        else:
            selected = select.selected_epoch
            if not select.within_budget:
                selection += " (none did: best val_reward)"
        results["speed_read"] = {
            "history": _history(history),
            "epochs_run": epochs,
            "seconds": seconds,
            "seconds_per_epoch": seconds / epochs,
            "selected_epoch": selected + 1,
            "selection": selection,
        }
    return results


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


def train_structural_jump(output_dir=None, dataset="rotten_tomatoes", data=None, tokenizer=None, **options):
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
        accuracy, and the greedy `validation` and `test` results of
        `evaluate_structural_jump` (accuracy, read / skip / jump fractions,
        Flop-r, mean reward).

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
    return model, record


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
