"""Structural-Jump-LSTM's two training phases on a schedule in steps, resumable.

`fit_structural_jump_steps` runs batches with `train_on_batch`, validates
every `schedule.validate_every` steps, appends each validation to a
history and writes a checkpoint (`RunCheckpoint`) at every validation,
every `checkpoint_seconds` and when SIGINT or SIGTERM arrives. Everything a
step depends on is in the checkpoint: the model's variables (weights, the
delta/beta/phase variables and the random seed states of the Gumbel noise
and the dropouts), the optimizer's variables, the position in the seeded
batch order, the best weights and score so far, the patience count and
the history; so a resumed run takes the same steps as one that was never
stopped.
"""

import contextlib
import dataclasses
import signal
import time

import numpy as np

from keras_skim.models.structural_jump.structural_jump_reading_cost import next_level, rung_weight
from keras_skim.models.structural_jump.structural_jump_selection import (
    accuracy_floor,
    describe_selection,
    floor_words,
    speed_read_key,
)
from keras_skim.training.run_checkpoint import (
    CheckpointUnreadable,
    RunCheckpoint,
    TrainingInterrupted,
    assign_arrays,
    named_arrays,
    stored_weights,
)

PHASES = ("full_read", "speed_read")
_CHECKPOINT_VERSION = 1
# Model config entries that change between the phases (not settings of the run).
_PHASE_CONFIG_KEYS = ("name", "speed_reading", "entropy_weight", "actor_weight", "train_embedding", "trainable")


@dataclasses.dataclass(frozen=True)
class StepFitOptions:
    """The options of `fit_structural_jump_steps` other than the schedule.

    Args:
        batch_size: documents per batch (length-bucketed, seeded order).
        learning_rate, speed_learning_rate: of phases 1 and 2.
        optimizer, speed_optimizer: see `structural_jump_optimizers.make_optimizer`
            (a fresh one per phase; the speed-read one defaults to `optimizer`).
        read_budget: if set, phase 2 keeps the weights with the best
            validation accuracy among validations reading at most this
            fraction (else the best validation reward, the authors' rule;
            and that if none fits).
        seed: seed of the batch order.
        run_dir: folder of the checkpoint, or None for a run that cannot be
            resumed.
        resume: continue from the checkpoint in `run_dir` if there is one
            (its settings must be these); else start from scratch.
        restart: delete an existing checkpoint and start from scratch.
        max_steps: stop (checkpoint written, `TrainingInterrupted` raised)
            after this many steps in this call.
        checkpoint_seconds: also write the checkpoint when this much time
            passed since the last one.
        phase_end_data: optional dict name -> `(token_ids, labels)`
            evaluated (`evaluate_structural_jump`) with the weights each
            phase keeps, e.g. `{"test": ...}`: the full-read model's own
            test accuracy (the paper's "vanilla LSTM").
        verbose: 0 silent, 1 one line per validation.
    """

    batch_size: int = 32
    learning_rate: float = 5e-4
    speed_learning_rate: float = 5e-4
    optimizer: str = "rmsprop_tf1"
    speed_optimizer: str = None
    read_budget: float = None
    seed: int = 0
    run_dir: object = None
    resume: bool = False
    restart: bool = False
    max_steps: int = None
    checkpoint_seconds: float = 300.0
    phase_end_data: dict = None
    verbose: int = 1


def fit_structural_jump_steps(model, train, validation, schedule, **options):
    """Runs both phases of `schedule` (a `StructuralJumpSchedule`) on a built model.

    Args:
        model: a `keras_skim.StructuralJumpLSTM` (built; its embedding
            already initialised).
        train, validation: `(token_ids, labels)` pairs of numpy arrays.
        schedule: the `StructuralJumpSchedule`.
        **options: the fields of `StepFitOptions` (`batch_size`, `run_dir`,
            `resume`, ...).

    Returns:
        dict: `full_read` and `speed_read` (those that ran), each with
        `history` (its validation records), `evaluation` (of
        `phase_end_data`), `steps_run`, `seconds`,
        `seconds_per_step`, `selected_step`, `selection`, `stopped`
        ("budget" or "patience"); `full_read` also `validation_accuracy`;
        and `history`, all validation records in order. A record holds
        `phase`, `step` (in the phase), `total_step`, the greedy validation
        `accuracy`, `read_fraction`, `skip_fraction`, `jump_fraction`,
        `reward`, the `entropy_weight` (delta) and `actor_weight` of the
        last step, `train` (the means of the training logs since the last
        validation) and `seconds` (training time of the phase so far).

    Raises:
        RunExists: `run_dir` holds a checkpoint and neither `resume` nor
            `restart` is set.
        CheckpointMismatch: the checkpoint is of a run with other settings.
        TrainingInterrupted: SIGINT / SIGTERM or `max_steps` stopped the run
            (after writing the checkpoint).
    """
    from keras_skim.models.structural_jump.length_bucketed_batches import LengthBucketedBatches

    options = StepFitOptions(**options)
    train_ids, train_labels = np.asarray(train[0], np.int32), np.asarray(train[1]).reshape(-1).astype(np.int32)
    run = _Run(
        model,
        LengthBucketedBatches(train_ids, train_labels, options.batch_size, shuffle=True, seed=options.seed),
        validation,
        schedule,
        _settings(model, schedule, options, len(train_labels), validation),
        RunCheckpoint(options.run_dir) if options.run_dir is not None else None,
        read_budget=options.read_budget,
        max_steps=options.max_steps,
        checkpoint_seconds=options.checkpoint_seconds,
        phase_end_data=options.phase_end_data or {},
        verbose=options.verbose,
    )
    run.open(resume=options.resume, restart=options.restart)
    with _stop_on_signals(run):
        for phase in PHASES:
            run.run_phase(phase)
        run.finish()
    return run.results()


def _settings(model, schedule, options, train_examples, validation):
    """What a checkpoint must have been written with to be resumed (its format: keep the keys)."""
    return {
        "schedule": schedule.to_dict(),
        "batch_size": int(options.batch_size),
        "learning_rate": float(options.learning_rate),
        "speed_learning_rate": float(options.speed_learning_rate),
        "optimizer": options.optimizer,
        "speed_optimizer": options.speed_optimizer or options.optimizer,
        "read_budget": options.read_budget,
        "seed": int(options.seed),
        "train_examples": int(train_examples),
        "validation_examples": int(len(np.asarray(validation[1]).reshape(-1))),
        "model": {k: v for k, v in model.get_config().items() if k not in _PHASE_CONFIG_KEYS},
    }


class _Run:
    """The state of one run and the steps that change it."""

    def __init__(self, model, batches, validation, schedule, settings, checkpoint, **options):
        self.model = model
        self.batches = batches
        self.validation = validation
        self.schedule = schedule
        self.settings = settings
        self.checkpoint = checkpoint
        self.read_budget = options["read_budget"]
        self.max_steps = options["max_steps"]
        self.checkpoint_seconds = options["checkpoint_seconds"]
        self.phase_end_data = options["phase_end_data"]
        self.verbose = options["verbose"]
        self.stop_requested = None
        self.steps_this_call = 0
        self.restored = None  # arrays of a loaded checkpoint, until used
        self.best_weights = None
        self.full_reader_weights = None  # phase 1's kept weights, for `full_reader_fallback`
        self._epoch_cache = (None, None)
        self._train_functions = {}  # rolling weight -> its traced training step (reading cost control)

    # ------------------------------------------------------------ open/save
    def open(self, resume, restart):
        self.state = {
            "version": _CHECKPOINT_VERSION,
            "settings": self.settings,
            "phase": PHASES[0],
            "phase_step": 0,
            "data_epoch": 0,
            "data_position": 0,
            "actor_weight": self.model.actor_weight,
            "history": [],
            "phases": {},
            "best_key": None,
            "since_best": 0,
            "train_sums": {},
            "train_count": 0,
            "phase_seconds": 0.0,
            "optimizer_phase": None,
        }
        opened = None
        if self.checkpoint is not None:
            opened = self.checkpoint.open(_CHECKPOINT_VERSION, self.settings, resume=resume, restart=restart)
        if opened is None:
            return
        state, arrays = opened
        self.checkpoint.check_state(state, self.state)
        if state["phase"] not in (*PHASES, "done"):
            raise CheckpointUnreadable(self.checkpoint.path, f"its run state names phase {state['phase']!r}")
        self.state = state
        self.restored = arrays
        assign_arrays(self.model.variables, arrays, "model")
        if "best/0" in arrays:
            self.best_weights = _best_weights(arrays, self.model.weights, state, self.checkpoint.path)
        if "full_reader/0" in arrays:
            self.full_reader_weights = stored_weights(
                arrays, "full_reader", self.model.weights, self.checkpoint.path, "its full reader's weights"
            )
        if self.verbose:
            print(f"resuming {state['phase']} at step {state['phase_step']} from {self.checkpoint.path}", flush=True)

    def save(self):
        if self.checkpoint is None:
            return
        arrays = named_arrays(self.model.variables, "model")
        if self.state["optimizer_phase"] is not None:
            arrays.update(named_arrays(self.model.optimizer.variables, "optimizer"))
        if self.best_weights is not None:
            arrays.update({f"best/{i}": w for i, w in enumerate(self.best_weights)})
        if self.full_reader_weights is not None:
            arrays.update({f"full_reader/{i}": w for i, w in enumerate(self.full_reader_weights)})
        self.checkpoint.save(self.state, arrays)
        self.last_save = time.monotonic()

    # --------------------------------------------------------------- phases
    def run_phase(self, phase):
        state = self.state
        if state["phase"] == "done" or PHASES.index(phase) < PHASES.index(state["phase"]):
            return  # done before (this call or the run that wrote the checkpoint)
        budget = self.schedule.full_read_steps if phase == "full_read" else self.schedule.speed_read_steps
        if budget == 0:
            state["phase"] = PHASES[PHASES.index(phase) + 1] if phase != PHASES[-1] else "done"
            return
        self._enter(phase)
        started = time.monotonic()
        self.last_save = started
        stopped = "budget"
        while state["phase_step"] < budget:
            self._train_step(phase)
            step = state["phase_step"]
            if step % self.schedule.validate_every == 0 or step == budget:
                state["phase_seconds"] += time.monotonic() - started
                started = time.monotonic()
                if self._validate(phase):
                    stopped = "patience"
                    break
                self.save()
            elif time.monotonic() - self.last_save > self.checkpoint_seconds:
                state["phase_seconds"] += time.monotonic() - started
                started = time.monotonic()
                self.save()
            if self.stop_requested or (self.max_steps is not None and self.steps_this_call >= self.max_steps):
                state["phase_seconds"] += time.monotonic() - started
                self.save()
                if self._controls(phase):
                    # The model's own w again, as the run's settings record it: a resume may pass this model.
                    self._use_rolling_weight(self.settings["model"]["rolling_weight"])
                raise TrainingInterrupted(self.checkpoint and self.checkpoint.run_dir, phase, step)
        state["phase_seconds"] += time.monotonic() - started
        self._leave(phase, budget, stopped)

    def _enter(self, phase):
        from keras_skim.models.structural_jump.structural_jump_optimizers import make_optimizer

        model, state = self.model, self.state
        speed = phase == "speed_read"
        model.speed_reading = speed
        if speed:
            model.embedding.trainable = False
        kind = self.settings["speed_optimizer"] if speed else self.settings["optimizer"]
        rate = self.settings["speed_learning_rate"] if speed else self.settings["learning_rate"]
        _compile_fresh(model, make_optimizer(kind, rate))
        if state["optimizer_phase"] == phase and self.restored is not None:
            assign_arrays(model.optimizer.variables, self.restored, "optimizer")
        state["optimizer_phase"] = phase
        self.restored = None
        if speed and self.schedule.rolling_weight_factor is not None:
            # The training step reads w when it is traced: one trace per rung.
            self._train_functions = {}
            model.rolling_weight = self._rung_weight(state.get("rolling_level", 0))
            model.train_function = None

    def _rung_weight(self, level):
        return rung_weight(self.settings["model"]["rolling_weight"], self.schedule.rolling_weight_factor, level)

    def _control_reading_cost(self, record):
        """Moves w one rung after a speed-read validation (the floor decides which way)."""
        floor = self._accuracy_floor()
        if floor is None:  # no full-read phase ran: nothing to steer by
            return
        state = self.state
        levels = self.schedule.rolling_weight_levels
        level = next_level(state.get("rolling_level", 0), record["accuracy"], floor, levels)
        self._use_rolling_weight(self._rung_weight(level))
        state["rolling_level"] = level

    def _use_rolling_weight(self, weight):
        """Sets the model's w and the training step traced for it (None: traced at the next step)."""
        model = self.model
        if weight != model.rolling_weight:
            self._train_functions[model.rolling_weight] = model.train_function
            model.rolling_weight = weight
            model.train_function = self._train_functions.get(weight)
        return weight

    def _leave(self, phase, budget, stopped):
        state = self.state
        records = [r for r in state["history"] if r["phase"] == phase]
        summary = {
            "steps_run": state["phase_step"],
            "step_budget": budget,
            "stopped": stopped,
            "seconds": state["phase_seconds"],
            "seconds_per_step": state["phase_seconds"] / max(state["phase_step"], 1),
            "selection": self._selection(phase),
            "selected_step": None,
        }
        if self.best_weights is not None:
            self.model.set_weights(self.best_weights)
            summary["selected_step"] = state["best_step"]
        if phase == "full_read" and self.schedule.full_reader_fallback:
            self.full_reader_weights = [np.array(w) for w in self.model.get_weights()]
        if phase == "speed_read":
            summary["speed_reading"] = self._kept_reader(records)
            if summary["speed_reading"]["kept"] == "full-reader":
                self.model.set_weights(self.full_reader_weights)
                self.model.speed_reading = False  # every word read, as in phase 1
                summary["selected_step"] = None
                state.pop("best_rolling_weight", None)
                self._use_rolling_weight(self.settings["model"]["rolling_weight"])
        if "best_rolling_weight" in state:
            # The model keeps the reading cost it was trained with at the kept step.
            summary["rolling_weight"] = self._use_rolling_weight(state.pop("best_rolling_weight"))
        if self.phase_end_data:
            from keras_skim.models.structural_jump.structural_jump_evaluation import evaluate_structural_jump

            summary["evaluation"] = {
                name: evaluate_structural_jump(self.model, *pair) for name, pair in self.phase_end_data.items()
            }
        if phase == "full_read":
            best = [r for r in records if r["step"] == summary["selected_step"]]
            summary["validation_accuracy"] = best[0]["accuracy"] if best else None
        state["phases"][phase] = summary
        next_phase = PHASES.index(phase) + 1
        state.update(
            phase=PHASES[next_phase] if next_phase < len(PHASES) else "done",
            phase_step=0,
            best_key=None,
            since_best=0,
            train_sums={},
            train_count=0,
            phase_seconds=0.0,
            optimizer_phase=None,
        )
        self.best_weights = None
        self.save()

    def _kept_reader(self, records):
        """Phase 2's outcome: "speed-read" or "full-reader" (the fallback) and why, in words."""
        floor = self._accuracy_floor()
        if floor is None or self.read_budget is not None:
            return {"kept": "speed-read", "why": self._selection("speed_read")}
        schedule = self.schedule
        words = floor_words(schedule.accuracy_floor_points, schedule.accuracy_floor_standard_errors)
        best_key = self.state["best_key"]
        if best_key is not None and best_key[0] == 1:
            why = f"the least-read validation within {words} of the full reader (floor {floor:.4f})"
            return {"kept": "speed-read", "why": why, "floor": floor}
        start = min(schedule.selection_start_steps, schedule.speed_read_steps)
        candidates = [r for r in records if r["step"] >= start] or records
        closest = max(candidates, key=lambda r: r["accuracy"]) if candidates else None
        why = f"no speed-read validation reached the floor {floor:.4f} ({words} under the full reader)"
        if closest is not None:
            why += f"; the closest: {closest['accuracy']:.4f} at {closest['read_fraction']:.1%} read"
        weights = [r["rolling_weight"] for r in records if "rolling_weight" in r]
        if weights:
            why += f", with the reading cost lowered down to w {min(weights):.3g}"
        fallback = schedule.full_reader_fallback and self.full_reader_weights is not None
        return {"kept": "full-reader" if fallback else "speed-read", "why": why, "floor": floor}

    def finish(self):
        # The trained model as phase 2 left it (or phase 1, without phase 2, or the full reader it fell back to).
        fell_back = (self.state["phases"].get("speed_read") or {}).get("speed_reading", {}).get("kept")
        speed = self.schedule.speed_read_steps > 0 and fell_back != "full-reader"
        self.model.speed_reading = speed
        if speed:
            self.model.embedding.trainable = False

    # ----------------------------------------------------------------- steps
    def _batch(self):
        state = self.state
        epoch, batches = self._epoch_cache
        if epoch != state["data_epoch"]:
            # Every data epoch's order depends only on (seed, epoch): a
            # resumed run finds the same batches at the same position.
            self.batches.rng = np.random.default_rng([self.settings["seed"], state["data_epoch"]])
            batches = self.batches._make_batches()
            self._epoch_cache = (state["data_epoch"], batches)
        rows = batches[state["data_position"]]
        state["data_position"] += 1
        if state["data_position"] >= len(batches):
            state["data_epoch"] += 1
            state["data_position"] = 0
        return self.batches.token_ids[rows], self.batches.labels[rows]

    def _train_step(self, phase):
        model, state = self.model, self.state
        step = state["phase_step"]
        if phase == "speed_read":
            model.entropy_weight = self.schedule.entropy_weight_at(step)
            warming = step < self.schedule.critic_warmup_steps
            model.actor_weight = 0.0 if warming else state["actor_weight"]
        else:
            # The code's step counter (and delta's decay) starts with speed reading.
            model.entropy_weight = self.schedule.initial_entropy_weight
            model.actor_weight = state["actor_weight"]
        x, y = self._batch()
        logs = model.train_on_batch(x, y, return_dict=True)
        for name, value in logs.items():
            state["train_sums"][name] = state["train_sums"].get(name, 0.0) + float(value)
        state["train_count"] += 1
        state["phase_step"] = step + 1
        self.steps_this_call += 1

    def _validate(self, phase):
        """Appends a validation record; True when the phase's patience ran out."""
        from keras_skim.models.structural_jump.structural_jump_evaluation import evaluate_structural_jump

        model, state = self.model, self.state
        scores = evaluate_structural_jump(model, *self.validation)
        count = max(state["train_count"], 1)
        record = {
            "phase": phase,
            "step": state["phase_step"],
            "total_step": state["phase_step"]
            + sum(p["steps_run"] for name, p in state["phases"].items() if name != phase),
            **{
                k: scores[k]
                for k in ("accuracy", "read_fraction", "skip_fraction", "jump_fraction", "reward", "flop_r")
            },
            "entropy_weight": model.entropy_weight,
            "actor_weight": model.actor_weight,
            **({"rolling_weight": model.rolling_weight} if self._controls(phase) else {}),
            "train": {k: v / count for k, v in state["train_sums"].items()},
            "seconds": state["phase_seconds"],
        }
        state["history"].append(record)
        state["train_sums"], state["train_count"] = {}, 0
        key = self._key(phase, record)
        candidate = self._candidate(phase, record["step"])
        improved = candidate and (state["best_key"] is None or key > tuple(state["best_key"]))
        if improved:
            state["best_key"], state["best_step"], state["since_best"] = list(key), record["step"], 0
            self.best_weights = [np.array(w) for w in model.get_weights()]
            if "rolling_weight" in record:
                state["best_rolling_weight"] = record["rolling_weight"]
        elif candidate and not self._short_of_the_floor(phase):
            state["since_best"] += 1
        if self._controls(phase):
            self._control_reading_cost(record)
        if self.verbose:
            print(_describe(record, phase, self.schedule, improved), flush=True)
        patience = self.schedule.full_read_patience if phase == "full_read" else self.schedule.speed_read_patience
        return patience is not None and state["since_best"] >= patience

    def _short_of_the_floor(self, phase):
        """Whether phase 2 falls back to the full reader and no validation has reached the floor yet:
        patience waits (the reading cost keeps going down) until one does or the budget ends."""
        if phase != "speed_read" or not self.schedule.full_reader_fallback or self._accuracy_floor() is None:
            return False
        best_key = self.state["best_key"]
        return self.read_budget is None and (best_key is None or best_key[0] != 1)

    def _controls(self, phase):
        return phase == "speed_read" and self.schedule.rolling_weight_factor is not None

    def _candidate(self, phase, step):
        """Whether a validation at `step` may be kept (and counts for patience)."""
        if phase == "full_read":
            return True
        budget = self.schedule.speed_read_steps
        return step >= min(self.schedule.selection_start_steps, budget)

    def _key(self, phase, record):
        if phase == "full_read":
            return (1, record["accuracy"])
        return speed_read_key(record, floor=self._accuracy_floor(), read_budget=self.read_budget)

    def _accuracy_floor(self):
        """The schedule's accuracy floor of phase 2, or None (no floor, or no full-read phase ran)."""
        standard_errors = self.schedule.accuracy_floor_standard_errors
        points = self.schedule.accuracy_floor_points
        full_read = self.state["phases"].get("full_read") or {}
        if (standard_errors is None and points is None) or full_read.get("validation_accuracy") is None:
            return None
        if points is not None:
            # Rounded: accuracies are counts over the validation set, and 0.71 - 0.01 is 0.7000000000000001.
            return round(full_read["validation_accuracy"] - points, 12)
        examples = len(np.asarray(self.validation[1]).reshape(-1))
        return accuracy_floor(full_read["validation_accuracy"], examples, standard_errors)

    def _selection(self, phase):
        if phase == "full_read":
            return "best validation accuracy"
        start = min(self.schedule.selection_start_steps, self.schedule.speed_read_steps)
        since = f" from step {start} on" if start else ""
        floor = self._accuracy_floor()
        standard_errors = self.schedule.accuracy_floor_standard_errors if floor is not None else None
        points = self.schedule.accuracy_floor_points if floor is not None else None
        rule = describe_selection(standard_errors, self.read_budget, floor_points=points)
        if floor is not None and self.read_budget is None:
            rule += f", floor {floor:.4f}"
        return rule + since

    def results(self):
        state = self.state
        out = {}
        for phase, summary in state["phases"].items():
            out[phase] = {**summary, "history": [r for r in state["history"] if r["phase"] == phase]}
        out["history"] = list(state["history"])
        out["run_dir"] = self.checkpoint.run_dir if self.checkpoint is not None else None
        return out


def _compile_fresh(model, optimizer):
    """Compiles `model` with `optimizer`, built on its trainable variables.

    When the model is already compiled with an optimizer of the same class
    and settings over the same variables, that optimizer's variables are
    reset to the new one's initial values instead: the same state as a
    recompile, without tracing the training step again (seconds per call
    on this model).
    """
    optimizer.build(model.trainable_variables)
    current = getattr(model, "optimizer", None) if getattr(model, "compiled", False) else None
    if (
        current is not None
        and type(current) is type(optimizer)
        and current.get_config() == optimizer.get_config()
        and current.built
        # Slot variables are named after the variables they serve: equal
        # names and shapes mean the same trainable variables.
        and [(v.path, tuple(v.shape)) for v in current.variables]
        == [(v.path, tuple(v.shape)) for v in optimizer.variables]
    ):
        for old, new in zip(current.variables, optimizer.variables):
            old.assign(new)
        return
    model.compile(optimizer)


@contextlib.contextmanager
def _stop_on_signals(run):
    """SIGINT / SIGTERM ask the run to stop after the current step (checkpoint written)."""

    def request(signum, frame):
        if run.stop_requested:  # a second signal: stop at once
            raise KeyboardInterrupt
        run.stop_requested = signal.Signals(signum).name
        if run.verbose:
            print(f"{run.stop_requested}: stopping after this step and writing the checkpoint", flush=True)

    previous = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            previous[sig] = signal.signal(sig, request)
        except ValueError:  # not the main thread: leave signals alone
            pass
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _best_weights(arrays, weights, state, path):
    """The checkpoint's best-so-far weights, each present with its weight's shape."""
    if "best_step" not in state:
        raise CheckpointUnreadable(path, "its best-so-far weights do not fit the model")
    return stored_weights(arrays, "best", weights, path, "its best-so-far weights")


def _describe(record, phase, schedule, improved):
    budget = schedule.full_read_steps if phase == "full_read" else schedule.speed_read_steps
    return (
        f"{phase} step {record['step']}/{budget}: validation accuracy {record['accuracy']:.4f}, "
        f"read {record['read_fraction']:.1%}, skip {record['skip_fraction']:.1%}, "
        f"jump {record['jump_fraction']:.1%}, reward {record['reward']:.4f}, "
        f"delta {record['entropy_weight']:.4f}"
        + (f", w {record['rolling_weight']:.4g}" if "rolling_weight" in record else "")
        + f"{' (best)' if improved else ''} [{record['seconds']:.0f} s]"
    )
