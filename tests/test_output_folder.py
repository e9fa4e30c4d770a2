"""keras_skim.output_folder: output folders that never lose what keras-skim
did not write, nor leave half-written state behind."""

import errno
import json
import os
import signal
import subprocess
import sys

import pytest

from keras_skim import contracts, output_folder
from keras_skim.output_folder import OutputRefused


def _write(folder, files, force=False):
    with output_folder.staged_output_dir(folder, force=force) as stage:
        for name, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(stage, name)), exist_ok=True)
            with open(os.path.join(stage, name), "w") as f:
                f.write(text)


def _stages(folder):
    return [name for name in os.listdir(folder) if name.startswith(".keras-skim")]


def test_staged_folder_has_the_marker_listing_its_files_and_umask_permissions(tmp_path):
    old = os.umask(0o022)
    try:
        _write(tmp_path / "out", {"a.json": "{}", "sub/b.txt": "bb"})
    finally:
        os.umask(old)
    out = tmp_path / "out"
    assert output_folder.is_keras_skim_output(out)
    marker = json.loads((out / contracts.MARKER_FILE).read_text())
    assert marker["written_by"] == "keras-skim"
    assert sorted(marker["files"]) == ["a.json", "sub/b.txt"]
    assert marker["files"]["sub/b.txt"]["size"] == 2 and len(marker["files"]["a.json"]["sha256"]) == 64
    assert oct(out.stat().st_mode & 0o777) == oct(0o755)
    assert oct((out / "a.json").stat().st_mode & 0o777) == oct(0o644)


def test_failed_block_leaves_nothing_and_keeps_the_old_folder(tmp_path):
    _write(tmp_path / "out", {"v1": ""})
    with pytest.raises(RuntimeError):
        with output_folder.staged_output_dir(tmp_path / "out", force=True) as stage:
            open(os.path.join(stage, "v2"), "w").close()
            raise RuntimeError("boom")
    assert sorted(os.listdir(tmp_path / "out")) == sorted([contracts.MARKER_FILE, "v1"])
    assert _stages(tmp_path) == []
    with pytest.raises(RuntimeError):  # missing parents made for the output are removed again
        with output_folder.staged_output_dir(tmp_path / "new" / "deeper" / "out"):
            raise RuntimeError("boom")
    assert not (tmp_path / "new").exists()


def test_force_replaces_only_what_keras_skim_wrote(tmp_path):
    out = tmp_path / "out"
    _write(out, {"model.tflite": "v1", "sub/a.txt": "a"})
    _write(out, {"model.tflite": "v2"}, force=True)  # untouched: replaced whole
    assert (out / "model.tflite").read_text() == "v2" and not (out / "sub").exists()
    (out / "notes.txt").write_text("mine")
    (out / "mydata").mkdir()
    (out / "mydata" / "keep.csv").write_text("text,label")
    ran = []
    with pytest.raises(OutputRefused, match="did not write") as info:
        with output_folder.staged_output_dir(out, force=True):
            ran.append(True)
    assert ran == [] and "notes.txt" in str(info.value) and "mydata/" in str(info.value)
    assert (out / "notes.txt").read_text() == "mine" and (out / "mydata" / "keep.csv").read_text() == "text,label"
    (out / "notes.txt").unlink()
    (out / "mydata" / "keep.csv").unlink()  # an empty folder holds nothing to lose
    (out / "model.tflite").write_text("edited by hand")
    with pytest.raises(OutputRefused, match="model.tflite"):
        output_folder.check_output_folder(out, force=True)
    (out / "model.tflite").write_text("v2")
    output_folder.check_output_folder(out, force=True)


def test_a_marker_without_the_list_of_files_is_not_replaced(tmp_path):
    old = tmp_path / "old"
    old.mkdir()
    (old / contracts.MARKER_FILE).write_text(json.dumps({"written_by": "keras-skim", "version": "0.1.0"}))
    (old / "model.keras").write_text("x")
    with pytest.raises(OutputRefused, match="did not record its files"):
        output_folder.check_output_folder(old, force=True)


def test_files_added_during_the_work_are_kept_and_so_is_the_new_output(tmp_path):
    out = tmp_path / "out"
    _write(out, {"model.tflite": "v1"})
    with pytest.raises(OutputRefused, match="out-new") as info:
        with output_folder.staged_output_dir(out, force=True) as stage:
            (out / "notes.txt").write_text("written while training")
            (tmp_path / "out-new").mkdir()  # taken: the next free name is used
            with open(os.path.join(stage, "model.tflite"), "w") as f:
                f.write("v2")
    assert "\n" not in str(info.value)
    assert (out / "notes.txt").read_text() == "written while training" and (out / "model.tflite").read_text() == "v1"
    assert (tmp_path / "out-new-2" / "model.tflite").read_text() == "v2"


def test_force_rules(tmp_path, monkeypatch):
    check = output_folder.check_output_folder
    user = tmp_path / "user"
    user.mkdir()
    (user / "notes.txt").write_text("mine")
    with pytest.raises(OutputRefused, match="already exists"):
        check(user)
    with pytest.raises(OutputRefused, match="did not write"):
        check(user, force=True)
    (tmp_path / "empty").mkdir()
    check(tmp_path / "empty", force=True)  # an empty folder may be replaced
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputRefused, match="not a folder keras-skim wrote"):
        check(tmp_path / "file", force=True)
    model = tmp_path / "run" / "model.keras"
    model.parent.mkdir()
    model.write_text("x")
    for target in (tmp_path / "run", tmp_path):
        with pytest.raises(OutputRefused, match="input"):
            check(target, force=True, inputs=[model])
    check(tmp_path / "run" / "export", inputs=[model])  # a new folder inside the input's is fine
    monkeypatch.chdir(tmp_path / "run")
    for target in (".", "..", "/", os.path.expanduser("~")):
        with pytest.raises(OutputRefused, match="refusing"):
            check(target, force=True)
    assert (user / "notes.txt").read_text() == "mine" and model.read_text() == "x"


def test_a_name_the_file_system_cannot_create_is_refused_before_any_work(tmp_path):
    ran = []
    for name in ("x" * 300, os.path.join("a" * 300, "out")):
        with pytest.raises(OutputRefused, match="cannot create the output folder") as info:
            with output_folder.staged_output_dir(tmp_path / name):
                ran.append(True)
        assert "longer than" in str(info.value) or "too long" in str(info.value)
    assert ran == [] and os.listdir(tmp_path) == []


def test_sigterm_in_the_block_cleans_up_like_ctrl_c(tmp_path):
    with pytest.raises(output_folder.Terminated):
        with output_folder.staged_output_dir(tmp_path / "out") as stage:
            open(os.path.join(stage, "half"), "w").close()
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(1000):  # the handler runs between bytecodes
                pass
    assert os.listdir(tmp_path) == []
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_ctrl_c_during_a_save_is_held_not_swallowed(tmp_path, sigint_handler):
    sigint_handler(signal.default_int_handler)
    steps = []
    with pytest.raises(KeyboardInterrupt):
        with output_folder.deferred_signals():
            try:  # what Keras' model.save does around its weight file
                os.kill(os.getpid(), signal.SIGINT)
                steps.append("after the signal")
            except:  # noqa: E722
                steps.append("swallowed")
            steps.append("save finished")
    assert steps == ["after the signal", "save finished"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_ignored_ctrl_c_stays_ignored_during_a_save(tmp_path, sigint_handler):
    sigint_handler(signal.SIG_IGN)
    with output_folder.deferred_signals():
        os.kill(os.getpid(), signal.SIGINT)
        saved = True
    assert saved and signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def test_stale_staging_folders_of_dead_processes_are_removed(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    host = output_folder._host_tag()
    stale = tmp_path / f"{output_folder.STAGE_PREFIX}{host}-{dead.pid}-abc_12"
    live = tmp_path / f"{output_folder.STAGE_PREFIX}{host}-{os.getppid()}-abc_12"
    other_host = tmp_path / f"{output_folder.STAGE_PREFIX}00000000-{dead.pid}-abc_12"
    users = tmp_path / f"{output_folder.STAGE_PREFIX}{host}-{dead.pid}-mine.txt"
    for folder in (stale, live, other_host, users):
        folder.mkdir()
        (folder / "half.keras").write_text("x")
    _write(tmp_path / "out", {"a": "b"})
    assert not stale.exists() and live.exists() and other_host.exists() and users.exists()


def test_a_full_disk_is_one_line_and_leaves_nothing(tmp_path):
    with pytest.raises(OutputRefused, match="No space left") as info:
        with output_folder.staged_output_dir(tmp_path / "out") as stage:
            open(os.path.join(stage, "half"), "w").close()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    assert "nothing was written" in str(info.value) and os.listdir(tmp_path) == []


def test_a_terminated_writer_cleans_up_and_a_killed_ones_stage_goes_next_run(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    script = (
        "import sys, time\n"
        "from keras_skim.output_folder import staged_output_dir\n"
        "with staged_output_dir(sys.argv[1]) as stage:\n"
        "    open(stage + '/half.keras', 'w').close()\n"
        "    print('staged', flush=True)\n"
        "    time.sleep(60)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    for sig in (signal.SIGTERM, signal.SIGKILL):
        writer = subprocess.Popen(
            [sys.executable, "-c", script, str(tmp_path / "out")], stdout=subprocess.PIPE, env=env
        )
        assert writer.stdout.readline() == b"staged\n"
        writer.send_signal(sig)
        writer.communicate(timeout=60)
        assert writer.returncode != 0
        left = _stages(tmp_path)
        assert left == [] if sig == signal.SIGTERM else len(left) == 1
    _write(tmp_path / "next", {"a": "b"})  # the killed writer's stage is removed by the next run there
    assert _stages(tmp_path) == [] and not (tmp_path / "out").exists()


def test_an_output_path_longer_than_path_max_leaves_no_folders(tmp_path):
    # Issue 30, row 10: 20 nested 250-byte names; 16 empty folders were left behind.
    deep = tmp_path.joinpath(*[f"{i:02d}" + "d" * 248 for i in range(20)], "out")
    ran = []
    with pytest.raises(OutputRefused, match="cannot create the output folder") as info:
        with output_folder.staged_output_dir(deep):
            ran.append(True)
    assert "\n" not in str(info.value) and ran == [] and os.listdir(tmp_path) == []


def test_parents_made_before_a_failure_are_removed(tmp_path, monkeypatch):
    made = []
    real_mkdir = os.mkdir

    def mkdir_then_fail(path, *args):
        if len(made) == 2:
            raise OSError(errno.ENAMETOOLONG, "File name too long")
        made.append(path)
        return real_mkdir(path, *args)

    monkeypatch.setattr(output_folder, "_check_creatable", lambda path: None)
    monkeypatch.setattr(os, "mkdir", mkdir_then_fail)
    with pytest.raises(OutputRefused, match="File name too long"):
        with output_folder.staged_output_dir(tmp_path / "a" / "b" / "c" / "out"):
            pass
    assert len(made) == 2 and os.listdir(tmp_path) == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_the_final_rename_does_not_report_a_complete_folder_interrupted(
    tmp_path, monkeypatch, sigint_handler, sig
):
    # Issue 30: SIGTERM/SIGINT held during the commit used to raise after it: exit 130
    # "interrupted" although the folder was complete.
    sigint_handler(signal.default_int_handler)
    commit = output_folder._commit

    def commit_with_a_signal(stage, path):
        os.kill(os.getpid(), sig)
        commit(stage, path)

    monkeypatch.setattr(output_folder, "_commit", commit_with_a_signal)
    _write(tmp_path / "out", {"model.txt": "weights"})
    assert (tmp_path / "out" / "model.txt").read_text() == "weights"
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_force_keeps_a_page_the_user_edited(tmp_path):
    # Issue 30, row 15: `show --html --force` overwrote a page whose notes the user had added.
    page = tmp_path / "show.html"
    marker = contracts.HTML_MARKER
    output_folder.write_output_file(page, f"<html>{marker}<p>first</p></html>".encode(), marker=marker)
    output_folder.write_output_file(page, f"<html>{marker}<p>again</p></html>".encode(), force=True, marker=marker)
    assert "again" in page.read_text()  # unedited: replaced
    page.write_text(page.read_text().replace("again", "again <b>my notes</b>"))
    with pytest.raises(OutputRefused, match="changed since keras-skim wrote it"):
        output_folder.write_output_file(page, f"<html>{marker}<p>third</p></html>".encode(), force=True, marker=marker)
    assert "my notes" in page.read_text()
    page.write_text(f"<html>{marker}<p>an older keras-skim's page, without a stamp</p></html>")
    with pytest.raises(OutputRefused, match="changed since keras-skim wrote it"):
        output_folder.check_output_file(page, force=True, marker=marker)
    fifo = tmp_path / "fifo.html"
    os.mkfifo(fifo)  # refused at once, not waited on
    with pytest.raises(OutputRefused, match="was not written by keras-skim"):
        output_folder.check_output_file(fifo, force=True, marker=marker)


def test_a_fifo_in_place_of_the_marker_is_not_waited_on(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    os.mkfifo(folder / contracts.MARKER_FILE)
    with pytest.raises(OutputRefused, match="no .keras-skim-output.json"):
        output_folder.check_output_folder(folder, force=True)
