"""A deadline on each model run, for processes that run exports they did not write.

Why a deadline and not a check: a builtin export is a small program (WHILE
loops over computed indices), and a well-formed graph whose loop stops
advancing because of a value computed at run time (a flipped constant, say)
runs forever in LiteRT; no structural check of the flatbuffer can decide
that (`keras_skim.runtime.tflite_check` refuses what a check can). LiteRT's
Python `Interpreter`, which runs builtin exports, cannot be cancelled, so
the only sound way out of such a run is to end the process: the watchdog
prints one line naming the model and exits with status 2.

`keras-skim` commands arm it (`arm_for_command_line`). A server that runs
exports from untrusted sources should run them in a worker process and arm
it there, or use its own process deadline.

The cost per run is two attribute writes in `SkimRunner.invoke`; the
watchdog thread wakes twice a second.
"""

import os
import sys
import threading
import time
import weakref

# A run may take this long plus `SECONDS_PER_TOKEN` per token before it is
# taken for a run that never ends: well above the per-token time of every
# export measured on one desktop core (benchmarks/results/custom_op_speed.md),
# on a text of any length (override with KERAS_SKIM_RUN_DEADLINE, seconds).
BASE_SECONDS = 60.0
SECONDS_PER_TOKEN = 1e-3
POLL_SECONDS = 0.5
DEADLINE_ENV = "KERAS_SKIM_RUN_DEADLINE"

_watched = weakref.WeakSet()
_lock = threading.Lock()
_thread = None


def watch(runner):
    """Adds a runner (anything with `run_started`, `run_tokens` and
    `model_path` attributes) to what an armed watchdog checks."""
    with _lock:
        _watched.add(runner)


def base_seconds():
    """The deadline's fixed part: `KERAS_SKIM_RUN_DEADLINE` when set to a
    positive number, else `BASE_SECONDS`."""
    text = os.environ.get(DEADLINE_ENV, "")
    try:
        value = float(text)
    except ValueError:
        return BASE_SECONDS
    return value if 0 < value < float("inf") else BASE_SECONDS


def allowed_seconds(runner, base):
    """How long the runner's current run may take: `base` plus
    `SECONDS_PER_TOKEN` per token of its input."""
    return base + SECONDS_PER_TOKEN * runner.run_tokens


def _report_and_exit(runner, seconds):
    message = (
        f"keras-skim: error: {runner.model_path}: a run on {runner.run_tokens} tokens did not end within "
        f"{seconds:.0f} s; the model's loops do not end (a damaged export?)\n"
    )
    try:
        sys.stdout.flush()  # what the command printed before stays printed
        sys.stderr.write(message)  # Python's stderr: the terminal, also while the CLI logs native stderr
        sys.stderr.flush()
    finally:
        os._exit(2)  # LiteRT cannot be interrupted; leave without running Python's teardown in its run


def _watch_forever(base):
    while True:
        time.sleep(POLL_SECONDS)
        now = time.monotonic()
        with _lock:
            runners = list(_watched)
        for runner in runners:
            started, allowed = runner.run_started, allowed_seconds(runner, base)
            if started is not None and now - started > allowed:
                _report_and_exit(runner, allowed)


def arm_for_command_line():
    """Starts the watchdog (once per process): a run that outlives its
    deadline ends the process with one stderr line and status 2."""
    global _thread
    with _lock:
        if _thread is not None:
            return
        _thread = threading.Thread(target=_watch_forever, args=(base_seconds(),), name="keras-skim run deadline")
        _thread.daemon = True
        _thread.start()
