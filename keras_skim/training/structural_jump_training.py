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

`train_structural_jump` also loads a dataset, fits the tokenizer, loads
GloVe and writes a model folder like `keras-skim train`: `model.keras`,
`tokenizer.json`, `train_config.json`.
"""
import json
import os
import time

import keras
import numpy as np

from keras_skim.model_io import staged_output_dir

DEFAULT_MAX_LENGTH = {"imdb": 400, "rotten_tomatoes": 50}
# The paper: batch 32 for AG news, Rotten Tomatoes and SST, 100 for the rest.
DEFAULT_BATCH_SIZE = {"rotten_tomatoes": 32, "imdb": 100}


class LengthBucketedBatches(keras.utils.PyDataset):
    """Batches of documents of similar length, in a new order every epoch.

    The model runs its RNN only over the longest word stream of a batch,
    so grouping documents by length saves most of the padding steps on
    corpora of mixed lengths (IMDB). Each epoch: shuffle, cut into pools of
    `pool_batches` batches, sort each pool by length, cut into batches,
    shuffle the batches. With `shuffle=False` the batches are in length
    order (for evaluation).
    """

    def __init__(self, token_ids, labels, batch_size, shuffle=True, seed=0, pool_batches=50):
        super().__init__()
        self.token_ids = np.asarray(token_ids, np.int32)
        self.labels = np.asarray(labels).reshape(-1).astype(np.int32)
        if len(self.token_ids) != len(self.labels):
            raise ValueError(f"{len(self.token_ids)} documents but {len(self.labels)} labels")
        self.batch_size = int(batch_size)
        self.shuffle = shuffle
        self.pool_batches = pool_batches
        self.lengths = (self.token_ids != 0).sum(axis=1)
        self.rng = np.random.default_rng(seed)
        self._batches = self._make_batches()

    def _make_batches(self):
        n = len(self.labels)
        if not self.shuffle:
            order = np.argsort(self.lengths, kind="stable")
            return [order[i : i + self.batch_size] for i in range(0, n, self.batch_size)]
        order = self.rng.permutation(n)
        pool = self.batch_size * self.pool_batches
        batches = []
        for start in range(0, n, pool):
            chunk = order[start : start + pool]
            chunk = chunk[np.argsort(self.lengths[chunk], kind="stable")]
            batches += [chunk[i : i + self.batch_size] for i in range(0, len(chunk), self.batch_size)]
        self.rng.shuffle(batches)
        return batches

    def __len__(self):
        return len(self._batches)

    def __getitem__(self, index):
        rows = self._batches[index]
        return self.token_ids[rows], self.labels[rows]

    def on_epoch_end(self):
        if self.shuffle:
            self._batches = self._make_batches()


def make_optimizer(kind, learning_rate):
    """"rmsprop_tf1": the authors' RMSprop (per-tensor clipping, accumulators
    at 1; `PerTensorClipRMSprop`); "rmsprop": Keras' RMSprop; "adam"."""
    from keras_skim.training.per_tensor_clip_rmsprop import PerTensorClipRMSprop

    if kind == "rmsprop_tf1":
        return PerTensorClipRMSprop(learning_rate)
    if kind == "rmsprop":
        return keras.optimizers.RMSprop(learning_rate, rho=0.9, epsilon=1e-10)
    if kind == "adam":
        return keras.optimizers.Adam(learning_rate)
    raise ValueError(f"optimizer must be one of rmsprop_tf1, rmsprop, adam; got {kind!r}")


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
    from keras_skim.training.critic_warmup import CriticWarmup
    from keras_skim.training.entropy_weight_decay import EntropyWeightDecay
    from keras_skim.training.read_budget_checkpoint import ReadBudgetCheckpoint

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


def evaluate_structural_jump(model, token_ids, labels, batch_size=128):
    """Accuracy, reading fractions and Flop-r of the greedy policy."""
    from keras_skim.analysis.structural_jump_flops import structural_jump_flop_report
    from keras_skim.layers.structural_jump_statistics import structural_jump_statistics

    labels = np.asarray(labels).reshape(-1).astype(np.int64)
    order = np.argsort((np.asarray(token_ids) != 0).sum(axis=1), kind="stable")
    stats = structural_jump_statistics(model, np.asarray(token_ids)[order], batch_size=batch_size)
    counts = stats.pop("counts")
    predictions = stats.pop("predictions")
    flops = structural_jump_flop_report(
        counts["word_count"], counts["visited"], counts["read"],
        model.units, model.embedding_dim, model.agent_units,
    )
    return {
        "accuracy": float(np.mean(predictions == labels[order])) if len(labels) else 0.0,
        **stats,
        "flop_r": flops["flop_r"],
        "flop_r_per_document_mean": flops["flop_r_per_document_mean"],
        "examples": int(len(labels)),
    }


def load_dataset_splits(dataset, max_length=None, max_tokens=20000, limit=None, seed=0,
                        validation_fraction=0.15, glove=True, embedding_dim=50):
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


def train_structural_jump(
    output_dir=None,
    dataset="rotten_tomatoes",
    data=None,
    tokenizer=None,
    embedding_matrix=None,
    max_length=None,
    max_tokens=20000,
    glove=True,
    embedding_dim=50,
    units=128,
    agent_units=25,
    full_read_epochs=3,
    speed_read_epochs=10,
    batch_size=None,
    learning_rate=5e-4,
    speed_learning_rate=5e-4,
    optimizer="rmsprop_tf1",
    speed_optimizer=None,
    validation_fraction=0.15,
    limit=None,
    seed=0,
    force=False,
    verbose=2,
    model_options=None,
    fit_options=None,
):
    """Trains a Structural-Jump-LSTM classifier and optionally writes its folder.

    Args:
        output_dir: folder to write (`model.keras`, `tokenizer.json`,
            `train_config.json`), or None to write nothing.
        dataset: "rotten_tomatoes" or "imdb" (ignored when `data` is given).
            IMDB: the 25,000 training reviews split 85/15 (seeded) into train
            and validation, as the paper; Rotten Tomatoes: its own splits.
        data: instead of a dataset, a dict with `"train"`, `"validation"`
            and optionally `"test"`, each `(token_ids, labels)` encoded with
            `tokenizer` (which is then required).
        tokenizer: the `keras_skim.datasets.Tokenizer` of `data`.
        embedding_matrix: initial word vectors for `data` (GloVe is loaded
            for a named dataset when `glove` is True).
        max_length: tokens per text (raw, punctuation included); default
            400 for IMDB and 50 for Rotten Tomatoes.
        max_tokens: vocabulary size of a fitted tokenizer.
        glove: initialise the embedding with GloVe 6B 50d.
        embedding_dim, units, agent_units: d, m, a.
        full_read_epochs, speed_read_epochs, batch_size, learning_rate,
            speed_learning_rate, optimizer, speed_optimizer: see
            `fit_structural_jump`;
            `batch_size` defaults to the paper's (32 for Rotten Tomatoes,
            100 for IMDB).
        validation_fraction: the held-out share of IMDB's training reviews.
        limit: train on a seeded subset of this many texts (the evaluation
            splits shrink to limit // 4, at least 100).
        seed: seed of everything random.
        force: replace an existing `output_dir`.
        verbose: `fit`'s verbosity.
        model_options: extra `StructuralJumpLSTM` arguments (e.g.
            `{"advantage": "code"}`).
        fit_options: extra `fit_structural_jump` arguments.

    Returns:
        `(model, results)`; `results` holds the arguments, both phases'
        histories and timings, the full-read validation accuracy, and the
        greedy validation and test accuracy, reading fractions and Flop-r.
    """
    arguments = {
        k: v for k, v in locals().items()
        if k not in ("force", "verbose", "data", "tokenizer", "embedding_matrix")
    }
    from keras_skim.layers.text_structure import punctuation_ids
    from keras_skim.training.structural_jump_lstm import StructuralJumpLSTM
    from keras_skim.training.text_training import versions

    if output_dir is not None:
        output_dir = os.fspath(output_dir)
        arguments["output_dir"] = output_dir
        if os.path.exists(output_dir) and not force:
            raise FileExistsError(f"{output_dir} already exists (use --force to overwrite it)")
    keras.utils.set_random_seed(seed)

    if data is None:
        max_length = max_length or DEFAULT_MAX_LENGTH.get(dataset, 200)
        batch_size = batch_size or DEFAULT_BATCH_SIZE.get(dataset, 32)
        data, tokenizer, loaded = load_dataset_splits(
            dataset, max_length, max_tokens, limit, seed, validation_fraction, glove, embedding_dim
        )
        embedding_matrix = loaded if embedding_matrix is None else embedding_matrix
    else:
        if tokenizer is None:
            raise ValueError("train_structural_jump(data=...) needs the tokenizer that encoded the data")
        missing = {"train", "validation"} - set(data)
        if missing:
            raise ValueError(f"data must hold 'train' and 'validation' (token_ids, labels); missing {sorted(missing)}")
        data = {k: (np.asarray(v[0], np.int32), np.asarray(v[1]).reshape(-1).astype(np.int32))
                for k, v in data.items()}
        batch_size = batch_size or 32
        max_length = data["train"][0].shape[1]
        arguments["dataset"] = None
    arguments.update(max_length=max_length, batch_size=batch_size)

    num_classes = int(max(int(labels.max()) for _, labels in data.values() if len(labels)) + 1)
    model = StructuralJumpLSTM(
        tokenizer.vocabulary_size,
        **punctuation_ids(tokenizer.vocabulary),
        num_classes=max(num_classes, 2),
        embedding_dim=embedding_dim,
        units=units,
        agent_units=agent_units,
        seed=seed,
        **(model_options or {}),
    )
    model.build((None, max_length))
    if embedding_matrix is not None:
        model.set_embedding_matrix(np.asarray(embedding_matrix, np.float32))

    phases = fit_structural_jump(
        model,
        data["train"],
        data["validation"],
        full_read_epochs=full_read_epochs,
        speed_read_epochs=speed_read_epochs,
        batch_size=batch_size,
        learning_rate=learning_rate,
        speed_learning_rate=speed_learning_rate,
        optimizer=optimizer,
        speed_optimizer=speed_optimizer,
        seed=seed,
        verbose=verbose,
        **(fit_options or {}),
    )
    results = {"arguments": arguments, "phases": phases}
    if "full_read" in phases:
        results["full_read_validation_accuracy"] = phases["full_read"]["validation_accuracy"]
    results["validation"] = evaluate_structural_jump(model, *data["validation"])
    if "test" in data:
        results["test"] = evaluate_structural_jump(model, *data["test"])
    results.update(
        train_examples=int(len(data["train"][1])),
        vocabulary_size=tokenizer.vocabulary_size,
        punctuation_ids=punctuation_ids(tokenizer.vocabulary),
        versions=versions(),
    )
    if output_dir is not None:
        with staged_output_dir(output_dir, force=force) as stage:
            model.save(os.path.join(stage, "model.keras"))
            tokenizer.save(os.path.join(stage, "tokenizer.json"))
            with open(os.path.join(stage, "train_config.json"), "w") as f:
                json.dump(results, f, indent=2)
    return model, results
