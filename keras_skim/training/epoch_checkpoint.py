"""A `model.fit` run that resumes where it stopped: the model, its
optimizer, the history and the early-stopping state, written at each
epoch's end into one atomic `RunCheckpoint`."""

import math
import time

import keras

from keras_skim.training.run_checkpoint import assign_arrays, named_arrays, stored_weights

CHECKPOINT_VERSION = 1
# The attributes of Keras' EarlyStopping that carry from one epoch to the
# next (its on_train_begin resets them); other stoppers name theirs in
# STATE_ATTRIBUTES (keras_skim's StepPatience).
_EARLY_STOPPING_STATE = ("wait", "best", "best_epoch", "stopped_epoch")


class EpochCheckpoint(keras.callbacks.Callback):
    """Makes a `model.fit` run resumable, ending exactly as it would have
    without the stop.

    What `keras.callbacks.BackupAndRestore` keeps (the weights, the
    optimizer and the epoch) is not all a fit carries from one epoch to the
    next: this callback also keeps the history, the seed generators' states
    (`model.variables`: the Gumbel noise and dropout draws) and the state of
    the early-stopping callback (its patience counters and best weights),
    and writes them all in one file, replaced atomically
    (`RunCheckpoint.save`), at each epoch's end. A run stopped at any moment
    resumes from its last finished epoch; the batches come in the same
    order (Keras orders them the same way in each epoch of a seeded run),
    so the resumed run takes the same steps as one never stopped.

    Use it last in the callbacks (after the stopper, whose epoch-end
    decision it records), and fit from `initial_epoch`:

        run = EpochCheckpoint(RunCheckpoint(run_dir), settings, stopper)
        run.open(model, resume=True, restart=False)
        model.fit(..., epochs=run.epochs(epochs), initial_epoch=run.initial_epoch,
                  callbacks=[stopper, run])
        history = run.history  # every epoch's logs, resumed or not

    Args:
        checkpoint: the run's `RunCheckpoint`.
        settings: what the run was started with (JSON-able): a checkpoint
            written with other settings is refused.
        stopper: the run's early-stopping callback (`keras.callbacks.EarlyStopping`
            or one naming its state in `STATE_ATTRIBUTES` and keeping
            `best_weights`), or None.
        verbose: say when a run resumes.
    """

    def __init__(self, checkpoint, settings, stopper=None, verbose=0):
        super().__init__()
        self.checkpoint = checkpoint
        self.settings = settings
        self.stopper = stopper
        self.verbose = verbose
        self.initial_epoch = 0
        self.stopped = False
        self.history = {}
        self.seconds = 0.0
        self._restored = None  # (stopper state, its best weights) until on_train_begin

    def open(self, model, resume, restart):
        """Restores `model` (compiled, built) from the checkpoint when
        resuming one; sets `initial_epoch`, `history` and `seconds`.

        Raises:
            RunExists, CheckpointMismatch, CheckpointUnreadable,
                CheckpointUnwritable: see `RunCheckpoint.open` (one line each).
        """
        opened = self.checkpoint.open(CHECKPOINT_VERSION, self.settings, resume=resume, restart=restart)
        if opened is None:
            if resume and self.verbose:
                print(f"no checkpoint in {self.checkpoint.run_dir} yet: starting the run", flush=True)
            return
        state, arrays = opened
        self.checkpoint.check_state(state, self._state())
        assign_arrays(model.variables, arrays, "model")
        if not model.optimizer.built:
            model.optimizer.build(model.trainable_variables)
        assign_arrays(model.optimizer.variables, arrays, "optimizer")
        best = None
        if "best/0" in arrays:
            best = stored_weights(arrays, "best", model.weights, self.checkpoint.path, "its best-so-far weights")
        self._restored = (state["stopper"], best)
        self.initial_epoch, self.stopped = state["epoch"], state["stopped"]
        self.history, self.seconds = state["history"], state["seconds"]
        if self.verbose:
            print(f"resuming after epoch {self.initial_epoch} from {self.checkpoint.path}", flush=True)

    def epochs(self, epochs):
        """The `epochs` to give `fit`: none more once the run stopped early."""
        return self.initial_epoch if self.stopped else max(epochs, self.initial_epoch)

    def on_train_begin(self, logs=None):
        # After the stopper's own on_train_begin, which resets its state.
        if self._restored is not None and self.stopper is not None:
            values, best = self._restored
            for name in self._stopper_state():
                if values.get(name) is not None:  # None: the value its reset gives (no best yet)
                    setattr(self.stopper, name, values[name])
            self.stopper.best_weights = best
        self._restored = None

    def on_epoch_begin(self, epoch, logs=None):
        self._started = time.perf_counter()

    def on_epoch_end(self, epoch, logs=None):
        self.seconds += time.perf_counter() - self._started
        for name, value in (logs or {}).items():
            self.history.setdefault(name, []).append(float(value))
        self.initial_epoch, self.stopped = epoch + 1, bool(self.model.stop_training)
        arrays = named_arrays(self.model.variables, "model")
        arrays.update(named_arrays(self.model.optimizer.variables, "optimizer"))
        best = getattr(self.stopper, "best_weights", None)
        if best is not None:
            arrays.update(named_arrays(best, "best"))
        self.checkpoint.save(self._state(), arrays)

    def _state(self):
        """The JSON part of the checkpoint (a fresh run's: the template a loaded one must fit)."""
        return {
            "version": CHECKPOINT_VERSION,
            "settings": self.settings,
            "epoch": self.initial_epoch,
            "stopped": self.stopped,
            "history": self.history,
            "seconds": self.seconds,
            "stopper": self._stopper_state(),
        }

    def _stopper_state(self):
        if self.stopper is None:
            return {}
        names = getattr(self.stopper, "STATE_ATTRIBUTES", _EARLY_STOPPING_STATE)
        return {name: _json_number(getattr(self.stopper, name, None)) for name in names}


def _json_number(value):
    """A stopper's value as JSON holds it: None for a missing or infinite one."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return None
    return value.item() if hasattr(value, "item") else value


def fit_resumable(model, run, stopper, callbacks, epochs, verbose=0, fit_verbose=None, **fit_arguments):
    """`model.fit` for `epochs`, checkpointed at each epoch's end and resumed from its checkpoint when
    `run` says so (`EpochCheckpoint`, added after `callbacks`, the stopper among them).

    Args:
        model: A compiled, built model.
        run: ``{"run_dir", "resume", "restart", "settings"}`` (see `EpochCheckpoint` and
            `RunCheckpoint.open`), or None for a fit without checkpoints.
        stopper: The early-stopping callback among `callbacks`, or None.
        callbacks: The fit's callbacks.
        epochs: The run's epochs in all.
        verbose: Says when a run resumes; also `fit`'s verbosity unless `fit_verbose` is given.
        fit_verbose: `fit`'s verbosity when it differs (a progress callback among `callbacks` prints the epochs).
        **fit_arguments: The rest of `fit`'s arguments (data, batch size, validation data).

    Returns:
        (the history of every epoch, resumed ones included, the seconds the epochs took).

    Raises:
        keras_skim.training.run_checkpoint.CheckpointError: a checkpoint that cannot be resumed (one line).
    """
    from keras_skim.training.run_checkpoint import RunCheckpoint

    checkpoint, initial_epoch = None, 0
    if run is not None:
        checkpoint = EpochCheckpoint(RunCheckpoint(run["run_dir"]), run["settings"], stopper, verbose)
        checkpoint.open(model, resume=run["resume"], restart=run["restart"])
        epochs, initial_epoch = checkpoint.epochs(epochs), checkpoint.initial_epoch
        callbacks = [*callbacks, checkpoint]  # last: it records the stopper's decision at each epoch's end
    started = time.perf_counter()
    history = model.fit(
        epochs=epochs,
        initial_epoch=initial_epoch,
        callbacks=callbacks,
        verbose=verbose if fit_verbose is None else fit_verbose,
        **fit_arguments,
    )
    if checkpoint is not None:
        return checkpoint.history, checkpoint.seconds
    return {k: [float(v) for v in vs] for k, vs in history.history.items()}, time.perf_counter() - started
