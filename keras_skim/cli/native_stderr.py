"""Keeps the CLI's stderr to its own lines.

TensorFlow, Keras and LiteRT write log lines on the process's stderr (file
descriptor 2) from native code, some before any Python setting can silence
them (absl: "All log messages before absl::InitializeLog() ..."; oneDNN;
"Created TensorFlow Lite XNNPACK delegate"). The CLI promises one line on
stderr for bad input, so while a command runs, descriptor 2 points at a
log file and Python's `sys.stderr` (our messages, tracebacks of real bugs)
at the terminal. `KERAS_SKIM_NATIVE_LOGS=1` leaves stderr alone, to see
those lines.
"""

import contextlib
import os
import sys
import tempfile
import warnings

ENV = "KERAS_SKIM_NATIVE_LOGS"


@contextlib.contextmanager
def native_stderr_to_log():
    """Yields the log file's path (None when nothing is redirected).

    The log is removed at the end unless the block raised an unexpected
    exception, so that a bug report can include it.
    """
    if os.environ.get(ENV) == "1" or sys.stderr is not sys.__stderr__:
        # Also when a caller already captures Python's stderr (tests, embedding).
        yield None
        return
    try:
        sys.stderr.flush()
        terminal = os.dup(2)
    except (OSError, ValueError):  # no usable stderr (closed, or not a descriptor)
        yield None
        return
    fd, log_path = tempfile.mkstemp(prefix="keras-skim-native-", suffix=".log")
    saved_stderr, saved_showwarning = sys.stderr, warnings.showwarning
    os.dup2(fd, 2)
    os.close(fd)
    sys.stderr = open(terminal, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False)
    log = open(2, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False)

    def to_log(message, category, filename, lineno, file=None, line=None):
        # Library warnings (Keras, TensorFlow) are logged, not shown.
        log.write(warnings.formatwarning(message, category, filename, lineno, line))

    warnings.showwarning = to_log
    failed = False
    try:
        yield log_path
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException:
        failed = True
        raise
    finally:
        warnings.showwarning = saved_showwarning
        log.flush()
        sys.stderr.flush()
        os.dup2(terminal, 2)
        os.close(terminal)
        sys.stderr = saved_stderr
        if failed:
            print(f"(native library messages of this run: {log_path})", file=sys.stderr)
        else:
            with contextlib.suppress(OSError):
                os.unlink(log_path)
