"""How keras-skim writes its outputs so that nothing is ever lost (no TensorFlow).

An output folder (`keras-skim train|export|bench|demo -o DIR`) is written
into a hidden staging folder next to `DIR` and moved into place only when
complete. It then holds a marker file (`contracts.MARKER_FILE`) listing
every file keras-skim wrote there, with its size and sha256.

`--force` replaces such a folder only when it still holds exactly what
keras-skim wrote: a file a user added (`DIR/notes.txt`) or changed is never
deleted; the command refuses up front, naming it, before any work is done.
Refusing rather than merging is deliberate: the new run's files and the
user's files would otherwise end up side by side in a folder that describes
neither run, and the swap of the whole folder stays atomic.

Signals: SIGTERM during a staged write cleans up like Ctrl-C; while files
are being saved and the folder is swapped in, SIGINT/SIGTERM are held and
acted on right after (libraries with a bare `except:`, such as Keras'
`model.save`, would otherwise swallow Ctrl-C). Staging folders left by a
process killed outright (SIGKILL, power loss) are named after its host and
process id, and the next run in the same place removes them once that
process is gone.
"""

import contextlib
import ctypes
import errno
import hashlib
import os
import re
import shutil
import signal
import socket
import tempfile
import threading

from keras_skim.contracts import MARKER_FILE, OutputRefused, write_json
from keras_skim.version import __version__

STAGE_PREFIX = ".keras-skim-stage-"
# Errors of the file system rather than of the program: one line, not a traceback.
_WRITE_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EIO)
_SHOWN_FOREIGN = 3
_PATH_ROOM = 256  # bytes of path left for the staging folder and the files in the output


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that the same clean-up runs."""


# ------------------------------------------------------------------ signals
def _main_thread():
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def deferred_signals(completes=False):
    """Holds SIGINT and SIGTERM during the block and raises them after it
    (KeyboardInterrupt, or `Terminated`), so that a save is never cut in
    half nor a Ctrl-C swallowed by a library's bare `except:`.

    Args:
        completes: The block finishes the command's work (the final rename
            of an output folder): a signal held during it is dropped when the
            block succeeds, since what it asked to stop is done; reporting
            "interrupted" would tell the user a complete folder is not.
    """
    if not _main_thread():
        yield
        return
    received = []
    # A signal the process ignores (SIGINT of a job started in the background
    # of a non-interactive shell) stays ignored: holding it would turn it
    # into an interrupt the user never asked for.
    previous = {
        sig: signal.signal(sig, lambda number, _frame: received.append(number))
        for sig in _SIGNALS
        if signal.getsignal(sig) is not signal.SIG_IGN
    }
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if received and not completes:
        raise Terminated() if received[0] == signal.SIGTERM else KeyboardInterrupt()


def _raise_terminated(_number, _frame):
    raise Terminated()


_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def _terminate_as_interrupt():
    """SIGTERM raises `Terminated` during the block (so `finally` clauses run)."""
    if not _main_thread() or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return
    signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


# ---------------------------------------------------------- the manifest
def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _manifest(folder):
    """{relative path: {size, sha256}} of every file under `folder`."""
    files = {}
    for root, _dirs, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, folder).replace(os.sep, "/")
            if rel != MARKER_FILE:
                files[rel] = {"size": os.path.getsize(path), "sha256": _sha256(path)}
    return files


def _read_marker(path):
    from keras_skim import contract_fields

    try:  # capped, only a regular file (a FIFO in its place is not waited on), bounded nesting
        marker = contract_fields.parse_json(contract_fields.read_limited(os.path.join(path, MARKER_FILE), 1 << 24))
    except (OSError, ValueError):
        return None
    return marker if isinstance(marker, dict) and marker.get("written_by") == "keras-skim" else None


def is_keras_skim_output(path):
    """Whether `path` is a folder keras-skim wrote (it holds the marker)."""
    return _read_marker(os.fspath(path)) is not None


def written_files(path):
    """The files keras-skim recorded writing in the folder `path`
    ({relative path: {size, sha256}}), or None (no marker, or a marker of
    a version that did not record them)."""
    marker = _read_marker(os.fspath(path))
    files = marker.get("files") if marker else None
    return files if isinstance(files, dict) else None


def _unchanged(path, record):
    try:
        if os.path.islink(path) or not os.path.isfile(path) or not isinstance(record, dict):
            return False
        return os.path.getsize(path) == record.get("size") and _sha256(path) == record.get("sha256")
    except OSError:
        return False


def foreign_entries(path, files):
    """What in the folder `path` keras-skim did not write, as relative
    paths: files it did not record (or that changed since), and folders
    holding none of its files (shown whole, with a trailing /)."""
    ours_dirs = {os.path.dirname(rel) for rel in files}
    ours_dirs |= {"/".join(rel.split("/")[:i]) for rel in files for i in range(1, rel.count("/") + 1)}
    foreign = []
    for root, dirs, names in os.walk(path):
        rel_root = os.path.relpath(root, path).replace(os.sep, "/")
        prefix = "" if rel_root == "." else rel_root + "/"
        for name in sorted(dirs):
            link = os.path.islink(os.path.join(root, name))
            if link or (prefix + name not in ours_dirs and _holds_anything(os.path.join(root, name))):
                foreign.append(prefix + name + ("" if link else "/"))
        dirs[:] = [d for d in sorted(dirs) if prefix + d in ours_dirs and not os.path.islink(os.path.join(root, d))]
        for name in sorted(names):
            rel = prefix + name
            if rel != MARKER_FILE and not _unchanged(os.path.join(root, name), files.get(rel)):
                foreign.append(rel)
    return foreign


def _holds_anything(folder):
    """Whether a folder holds a file or a link anywhere below it (an empty
    folder holds nothing to lose)."""
    for root, dirs, names in os.walk(folder):
        if names or any(os.path.islink(os.path.join(root, d)) for d in dirs):
            return True
    return False


# ------------------------------------------------------------ the checks
def _inside(path, folder):
    """Whether `path` is `folder` or lies inside it (both absolute, real)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _refuse_foreign(shown, foreign):
    listed = ", ".join(foreign[:_SHOWN_FOREIGN])
    if len(foreign) > _SHOWN_FOREIGN:
        listed += f" and {len(foreign) - _SHOWN_FOREIGN} more"
    raise OutputRefused(
        f"{shown} holds files keras-skim did not write or that changed since ({listed}); --force "
        "replaces only keras-skim's own files: move them out or choose another folder"
    )


def check_output_folder(path, force=False, inputs=()):
    """Checks that keras-skim may write the folder `path` (replacing it with
    `force`), or raises OutputRefused with one line.

    Refused always: the current folder, the home folder, `/`, a parent of
    the current folder, a folder that is or holds one of `inputs` (files or
    folders the command reads), and a name the file system cannot create.
    Refused without `force`: anything that exists. Refused even with
    `force`: a file, a non-empty folder keras-skim did not write, and a
    folder it wrote that now holds files it did not write or that changed.
    """
    target = os.path.realpath(os.fspath(path))
    shown = os.path.abspath(os.fspath(path))
    protected = {os.path.realpath(os.sep), os.path.realpath(os.path.expanduser("~")), os.path.realpath(os.getcwd())}
    if target in protected or _inside(os.path.realpath(os.getcwd()), target):
        raise OutputRefused(
            f"{shown}: refusing to write into the current, home or root folder or a parent of "
            "the current folder (name a new folder)"
        )
    for item in inputs:
        if item is not None and _inside(os.path.realpath(os.fspath(item)), target):
            raise OutputRefused(
                f"{shown}: the output folder would replace the input {os.path.abspath(os.fspath(item))} "
                "(choose another output folder)"
            )
    if not os.path.lexists(shown):
        _check_creatable(shown)
        return
    if not force:
        raise OutputRefused(f"{shown} already exists (use --force to replace it)")
    if not os.path.isdir(shown) or os.path.islink(shown):
        raise OutputRefused(f"{shown} exists and is not a folder keras-skim wrote; --force will not delete it")
    if not os.listdir(shown):
        return
    if not is_keras_skim_output(shown):
        raise OutputRefused(
            f"{shown} holds files keras-skim did not write (no {MARKER_FILE}); --force only replaces "
            "keras-skim's own output folders: remove it yourself or choose another folder"
        )
    files = written_files(shown)
    if files is None:
        raise OutputRefused(
            f"{shown} was written by a keras-skim older than 0.2 that did not record its files, so --force "
            "cannot tell them from yours: remove it yourself or choose another folder"
        )
    foreign = foreign_entries(shown, files)
    if foreign:
        _refuse_foreign(shown, foreign)


def _check_creatable(path):
    """Refuses (one line) a new folder the file system cannot create: its
    nearest existing ancestor is not a writable folder, or a name is too
    long or not allowed. A folder whose parent exists is created and
    removed again, which asks the file system itself."""
    ancestor = os.path.dirname(path)
    while not os.path.lexists(ancestor):
        ancestor = os.path.dirname(ancestor)
    if not os.path.isdir(ancestor):
        raise OutputRefused(f"{path}: cannot create the output folder ({ancestor} is not a folder)")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise OutputRefused(f"{path}: cannot create the output folder ({ancestor} is not writable)")
    try:
        limit = os.pathconf(ancestor, "PC_NAME_MAX")
    except (OSError, ValueError):
        limit = 255
    for name in os.path.relpath(path, ancestor).split(os.sep):
        if len(os.fsencode(name)) > limit:
            raise OutputRefused(f"{path}: cannot create the output folder (a name is longer than {limit} bytes)")
    try:
        longest = os.pathconf(ancestor, "PC_PATH_MAX")
    except (OSError, ValueError):
        longest = 4096
    # Room for the staging folder's name and the files inside it.
    if len(os.fsencode(path)) + _PATH_ROOM >= longest:
        raise OutputRefused(
            f"{path[:60]}...: cannot create the output folder (its path is {len(os.fsencode(path))} bytes; "
            f"expected at most {longest - _PATH_ROOM})"
        )
    if ancestor == os.path.dirname(path):
        try:
            os.mkdir(path)
            os.rmdir(path)
        except OSError as err:
            raise OutputRefused(f"{path}: cannot create the output folder ({err.strerror})") from None


# ---------------------------------------------------------- stale stages
def _host_tag():
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


_STAGE_NAME = re.compile(re.escape(STAGE_PREFIX) + r"([0-9a-f]{8})-(\d+)-[A-Za-z0-9_]+(\.old)?$")


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def remove_stale_stages(parent):
    """Removes the staging folders in `parent` that a keras-skim process on
    this host left when killed (its process id is gone); returns their
    paths. Nothing else is touched: the name must match exactly, and a
    staging folder of a live process, of another host or a link is kept."""
    removed = []
    try:
        names = os.listdir(parent)
    except OSError:
        return removed
    host = _host_tag()
    for name in names:
        match = _STAGE_NAME.match(name)
        path = os.path.join(parent, name)
        if not match or match.group(1) != host or os.path.islink(path) or not os.path.isdir(path):
            continue
        if int(match.group(2)) != os.getpid() and not _alive(int(match.group(2))):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


# ------------------------------------------------------------- permissions
def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def apply_umask(path, directory=False):
    """Gives a file made by mkstemp/mkdtemp (0600/0700) the permissions a
    plain open/mkdir would have given it."""
    os.chmod(path, (0o777 if directory else 0o666) & ~_umask())


# ----------------------------------------------------------- the staging
def _exchange(a, b):
    """Swaps two paths atomically (Linux renameat2 RENAME_EXCHANGE); False
    where the system or file system cannot."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    return renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0


def _make_parents(parent):
    """Creates the missing folders above the output; returns them, deepest
    first. On failure those it made are removed again before it raises."""
    missing = []
    folder = parent
    while not os.path.lexists(folder):
        missing.append(folder)
        folder = os.path.dirname(folder)
    created = []
    try:
        for folder in reversed(missing):
            os.mkdir(folder)
            created.insert(0, folder)
    except OSError:
        _remove_empty(created)
        raise
    return created


def _remove_empty(folders):
    for folder in folders:
        with contextlib.suppress(OSError):
            os.rmdir(folder)


def _commit(stage, path):
    """Moves the finished `stage` to `path`, replacing the folder there."""
    if not os.path.lexists(path):
        os.rename(stage, path)
        return
    # `path` was checked before the work began; anything added since is the user's.
    if not _replaceable(path):
        kept = _free_name(path + "-new")
        os.rename(stage, kept)
        raise OutputRefused(
            f"{path} changed while keras-skim was working (it holds what keras-skim did not write); it was kept and "
            f"the new output is in {kept}"
        )
    if _exchange(stage, path):
        shutil.rmtree(stage, ignore_errors=True)  # now the old folder
        return
    old = stage + ".old"
    os.rename(path, old)
    os.rename(stage, path)
    shutil.rmtree(old, ignore_errors=True)


def _replaceable(path):
    """Whether the existing `path` is a folder holding nothing, or only
    what keras-skim wrote there, unchanged."""
    if not os.path.isdir(path) or os.path.islink(path):
        return False
    files = written_files(path)
    return not os.listdir(path) or (files is not None and not foreign_entries(path, files))


def _free_name(base):
    name, n = base, 1
    while os.path.lexists(name):
        n += 1
        name = f"{base}-{n}"
    return name


def _write_error(path, err):
    if isinstance(err, OSError) and err.errno in _WRITE_ERRORS:
        return OutputRefused(f"{path}: cannot write the output ({err.strerror}); nothing was written")
    return None


@contextlib.contextmanager
def staged_output_dir(path, force=False, inputs=()):
    """Yields a temporary folder that replaces `path` only on success.

    Checked first with `check_output_folder` (same arguments), and the
    staging folder is created at once, so a folder that cannot be written
    fails before any work. The finished folder holds the marker listing its
    files, has the permissions of a plain `mkdir`, and appears at once;
    nothing is left behind if the block fails, is interrupted (Ctrl-C,
    SIGTERM) or the disk fills up.

    Raises:
        OutputRefused: the folder may not or cannot be written (one line).
    """
    check_output_folder(path, force=force, inputs=inputs)
    path = os.path.abspath(os.fspath(path))
    parent = os.path.dirname(path)
    remove_stale_stages(parent)
    created = []
    try:
        created = _make_parents(parent)
        stage = tempfile.mkdtemp(prefix=f"{STAGE_PREFIX}{_host_tag()}-{os.getpid()}-", dir=parent)
    except OSError as err:
        _remove_empty(created)
        raise OutputRefused(f"{path}: cannot create the output folder ({err.strerror})") from None
    done = False
    try:
        with _terminate_as_interrupt():
            try:
                yield stage
                with deferred_signals(completes=True):
                    _finish(stage)
                    _commit(stage, path)
            except OSError as err:
                refused = _write_error(path, err)
                if refused is None:
                    raise
                raise refused from None
        done = True
    finally:
        if os.path.lexists(stage):
            shutil.rmtree(stage, ignore_errors=True)
        if not done:
            _remove_empty(created)


def _finish(stage):
    """Writes the marker with the list of files, and plain permissions."""
    for root, _dirs, names in os.walk(stage):
        apply_umask(root, directory=True)
        for name in names:
            apply_umask(os.path.join(root, name))
    marker = {"written_by": "keras-skim", "version": __version__, "files": _manifest(stage)}
    write_json(os.path.join(stage, MARKER_FILE), marker)
    apply_umask(os.path.join(stage, MARKER_FILE))


# ---------------------------------------------------------- single-file outputs
# A page keras-skim writes carries, after its marker (an HTML comment), the
# sha256 of the page without this stamp: `--force` replaces it only while
# that still holds, so notes the user added are never lost.
_STAMP = re.compile(rb"<!-- sha256:([0-9a-f]{64}) -->")
_MAX_STAMPED_BYTES = 1 << 30


def _stamped(data, marker):
    """`data` (holding `marker`) with its own sha256 stamped after the marker."""
    digest = hashlib.sha256(data).hexdigest()
    return data.replace(marker.encode(), marker.encode() + f"<!-- sha256:{digest} -->".encode(), 1)


def _written_page(path):
    """The bytes of an existing file `--force` may replace, or None when it is
    not a regular file that can be read (a FIFO is never waited on)."""
    from keras_skim.contract_fields import read_limited

    try:
        return read_limited(path, _MAX_STAMPED_BYTES)
    except (OSError, ValueError):
        return None


def _unedited(content, marker):
    """Whether `content` is a file keras-skim stamped that nobody changed since."""
    found = _STAMP.search(content)
    if found is None:
        return False
    bare = content[: found.start()] + content[found.end() :]
    return marker.encode() in bare and hashlib.sha256(bare).hexdigest() == found.group(1).decode()


def check_output_file(path, force=False, marker=None):
    """Checks that keras-skim may write the file `path`: refused (one line)
    if it is a folder, if it exists without `force`, or, with `force`, if
    it is not a file keras-skim wrote (its text lacks `marker`) or one
    changed since it wrote it (its stamp, see `write_output_file`)."""
    shown = os.path.abspath(os.fspath(path))
    if os.path.isdir(shown):
        raise OutputRefused(f"{shown}: is a folder (expected a file path to write)")
    if not os.path.lexists(shown):
        parent = os.path.dirname(shown)
        if not os.path.isdir(parent):
            raise OutputRefused(f"{shown}: the folder {parent} does not exist")
        if not os.access(parent, os.W_OK):
            raise OutputRefused(f"{shown}: the folder {parent} is not writable")
        return
    if not force:
        raise OutputRefused(f"{shown} already exists (use --force to replace it)")
    if marker is not None:
        content = _written_page(shown)
        if content is None or marker.encode() not in content[:4096]:
            raise OutputRefused(f"{shown} was not written by keras-skim; --force will not replace it")
        if not _unedited(content, marker):
            raise OutputRefused(
                f"{shown} changed since keras-skim wrote it (or an older keras-skim wrote it, without its "
                "sha256); --force will not replace it: move it away or choose another file"
            )


def write_output_file(path, data, force=False, marker=None):
    """Writes bytes to `path` atomically after `check_output_file`; with a
    `marker` (an HTML comment the bytes hold), the file is stamped with its
    sha256 so that a later `force` can tell whether it was edited."""
    check_output_file(path, force=force, marker=marker)
    if marker is not None:
        data = _stamped(data, marker)
    path = os.path.abspath(os.fspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".keras-skim-", dir=os.path.dirname(path))
    except OSError as err:
        raise OutputRefused(f"{path}: cannot write ({err.strerror})") from None
    try:
        with deferred_signals(), os.fdopen(fd, "wb") as f:
            f.write(data)
        apply_umask(tmp)
        os.replace(tmp, path)
    except OSError as err:
        refused = _write_error(path, err)
        if refused is None:
            raise
        raise refused from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
