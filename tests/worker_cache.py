"""One build of an expensive session fixture for all pytest-xdist workers.

With `-n 2 --dist loadfile` each worker is its own pytest session, so a
session fixture used by files in both workers is built twice. `shared_folder`
builds it once, under a lock, in the folder that every worker's base temporary
folder shares (the pattern of pytest-xdist's documentation, "Making
session-scoped fixtures execute only once"); the other worker waits for it and
reuses it. Without xdist it is a plain `tmp_path_factory.mktemp`. The lock is
fcntl's (POSIX): where that is missing each worker builds its own copy.

A fixture built this way is read-only to the tests, as every session fixture
already is within one worker: a test that changes such a folder copies it first."""

import contextlib
import os
import shutil

try:
    import fcntl
except ImportError:  # not POSIX: no shared builds
    fcntl = None


@contextlib.contextmanager
def _locked(path):
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def shared_root(tmp_path_factory):
    """The folder every xdist worker of this run shares, or None outside xdist."""
    if fcntl is None or not os.environ.get("PYTEST_XDIST_WORKER"):
        return None
    return tmp_path_factory.getbasetemp().parent


@contextlib.contextmanager
def one_worker_at_a_time(tmp_path_factory, name):
    """Holds the run's lock `name` (nothing outside xdist)."""
    root = shared_root(tmp_path_factory)
    if root is None:
        yield
        return
    with _locked(str(root / f"{name}.lock")):
        yield


def shared_folder(tmp_path_factory, name, build):
    """`build(folder)` once for every worker of this run; returns the folder
    (a pathlib.Path). A build that raised (or skipped) leaves nothing marked
    done: the next worker that asks builds again, and meets the same error."""
    root = shared_root(tmp_path_factory)
    if root is None:
        folder = tmp_path_factory.mktemp(name, numbered=True)
        build(folder)
        return folder
    folder, done = root / f"shared_{name}", root / f"shared_{name}.done"
    with _locked(str(root / f"shared_{name}.lock")):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            build(folder)
            done.write_text("")
    return folder
