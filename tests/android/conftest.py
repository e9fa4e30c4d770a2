"""Fixtures of the Android app's desktop checks: the app's plain-Java core compiled once per
session with javac and driven through a small JSON-lines probe (tests/android/java/), tiny
exported models, and the release pipeline's assets built from them."""

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ANDROID = os.path.join(ROOT, "android_demo")
APP_MAIN = os.path.join(ANDROID, "app", "src", "main")
CORE_SOURCES = os.path.join(APP_MAIN, "java", "org", "kerasskim", "demo", "core")
HERE = os.path.dirname(os.path.abspath(__file__))
PROBE_SOURCES = os.path.join(HERE, "java", "org", "kerasskim", "demo", "host")


@pytest.fixture(autouse=True)
def _seeded():
    """Overrides the suite's per-test Keras seeding and clear_session (about a second per test on
    a loaded machine): only the session fixture `tiny_exports` uses Keras, and it seeds itself."""
    yield


def _java_sources():
    core = sorted(os.path.join(CORE_SOURCES, f) for f in os.listdir(CORE_SOURCES) if f.endswith(".java"))
    probe = sorted(os.path.join(PROBE_SOURCES, f) for f in os.listdir(PROBE_SOURCES) if f.endswith(".java"))
    return core, probe


@pytest.fixture(scope="session")
def java_classes(tmp_path_factory):
    """The core and the probe, compiled once (for all xdist workers). `--release 8` keeps the
    core to the Java 8 library, which Android API 26 carries without desugaring."""
    from tests.worker_cache import shared_folder

    for tool in ("javac", "java"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not found: the app's Java core needs a JDK (javac 17) to be checked")
    return str(shared_folder(tmp_path_factory, "java_classes", _compile_java))


def _compile_java(out):
    core, probe = _java_sources()
    done = subprocess.run(
        [
            "javac",
            "--release",
            "8",
            "-Xlint:all",
            "-Xlint:-options",
            "-Xlint:-serial",
            "-Werror",
            "-encoding",
            "UTF-8",
            "-d",
            str(out),
            *core,
            *probe,
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, f"javac failed:\n{done.stdout}\n{done.stderr}"


class Probe:
    """One JVM running org.kerasskim.demo.host.CoreProbe; `call(op, **request)` -> its JSON answer."""

    def __init__(self, classes, env=None):
        self.process = subprocess.Popen(
            ["java", "-cp", classes, "org.kerasskim.demo.host.CoreProbe"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def call(self, op, **request):
        self.process.stdin.write(json.dumps(dict(request, op=op)) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the probe exited: {self.process.stderr.read()}")
        answer = json.loads(line)
        if isinstance(answer, dict) and "exception" in answer:
            raise AssertionError(f"Java threw {answer['exception']}\n{answer['trace']}")
        return answer

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=30)


@pytest.fixture(scope="session")
def probe(java_classes):
    p = Probe(java_classes)
    yield p
    p.close()


@pytest.fixture(scope="session")
def tiny_exports(exported, custom_exported):
    """Export folders of tiny models trained by the real `keras-skim train` (max length 30): the
    Skim-LSTM with the custom-op backend (where a C++ compiler builds the op) and the builtin
    one, and an LSTM: the session's exports (tests/conftest.py)."""
    folders = {}
    if shutil.which(os.environ.get("CXX", "g++")) is not None:
        folders["skim_lstm_custom"] = custom_exported("skim")
    folders["skim_lstm_builtin"] = exported("skim")[1]
    folders["lstm_builtin"] = exported("lstm")[1]
    return folders


@pytest.fixture(scope="session")
def shim(tmp_path_factory):
    """(libkeras_skim_jni.so, libLiteRt.so): the app's JNI shim built once per run (for all
    xdist workers) with its CMakeLists.txt (app/src/main/cpp), Release, warnings as errors,
    against the JDK's JNI headers, optimised at -O1 (TEST_COMPILE_RULE); the LiteRT C library
    is the ai-edge-litert wheel's."""
    from tests.worker_cache import shared_folder

    for tool in ("cmake", os.environ.get("CXX", "g++"), "javac"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not found: needed to build the JNI shim")
    import ai_edge_litert

    litert = os.path.join(os.path.dirname(ai_edge_litert.__file__), "libLiteRt.so")
    if not os.path.isfile(litert):
        pytest.skip(f"{litert} not found: this ai-edge-litert wheel has no LiteRT C library")
    build = shared_folder(tmp_path_factory, "jni_shim", _build_shim)
    return os.path.join(build, "libkeras_skim_jni.so"), litert


# CMake's compile rule with -O1 after every other flag (GCC takes the last -O): the CMakeLists'
# own -O3 (target_compile_options) made the kernels' three instruction-set copies the slowest part
# of the test run's one shim build, and the tests run tiny models, so the build's speed, not the
# code's, is what counts here. The app's and the release builds keep -O3.
TEST_COMPILE_RULE = "<CMAKE_CXX_COMPILER> <DEFINES> <INCLUDES> <FLAGS> -O1 -o <OBJECT> -c <SOURCE>"


def _build_shim(build):
    env = dict(os.environ)
    env.setdefault("JAVA_HOME", os.path.dirname(os.path.dirname(os.path.realpath(shutil.which("javac")))))
    for command in (
        # (warnings as errors for the shim's sources only: the Release flags, which CMake's own
        # compiler probes do not use)
        ["cmake", "-S", os.path.join(APP_MAIN, "cpp"), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release"]
        + ["-DCMAKE_CXX_FLAGS_RELEASE=-O3 -DNDEBUG -Werror", f"-DCMAKE_CXX_COMPILE_OBJECT={TEST_COMPILE_RULE}"],
        ["cmake", "--build", str(build), "-j2"],
    ):
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        assert done.returncode == 0, f"{' '.join(command)}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


BENCH_ROWS = [
    ("the movie was good and fun", 1),
    ("bad film awful plot boring", 0),
    ("great acting nice story", 1),
    ("boring, bad and awful!", 0),
]


def run_pipeline(*args):
    """`python export/build_release.py ARGS` from the checkout: (exit code, stdout, stderr)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [sys.executable, os.path.join(ROOT, "export", "build_release.py"), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    return done.returncode, done.stdout, done.stderr


def run_pipeline_in_process(*args):
    """`build_release.main(ARGS)` in this process, for a test that already imported TensorFlow
    (a second interpreter would import it again): (exit code, stdout, stderr)."""
    from export import build_release

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = build_release.main(list(args))
    return code, out.getvalue(), err.getvalue()


def build_assets(root, exports, run, *options):
    """The pipeline's `assets` command on the export folders `exports`, run by `run` (run_pipeline
    or run_pipeline_in_process): the assets in root/assets/keras_skim, the golden files in
    root/golden, benchmarked on BENCH_ROWS. Returns its stdout."""
    bench = root / "bench.tsv"
    bench.write_text("text\tlabel\n" + "".join(f"{t}\t{y}\n" for t, y in BENCH_ROWS), encoding="utf-8")
    code, out, err = run(
        "assets",
        "--from-exports",
        *exports,
        "-o",
        str(root / "assets" / "keras_skim"),
        "--golden",
        str(root / "golden"),
        "--bench-data",
        str(bench),
        "--bench-split",
        "all",
        *options,
    )
    assert code == 0, f"build_release.py assets failed:\n{out}\n{err}"
    return out


@pytest.fixture(scope="session")
def release(tmp_path_factory, tiny_exports):
    """The pipeline's `assets` command on the tiny exports (run once for all xdist workers): an
    assets folder laid out as the APK's (with the committed sample reviews) and the golden files."""
    from tests.worker_cache import shared_folder

    root = shared_folder(tmp_path_factory, "release", lambda root: _run_release(root, tiny_exports))
    assets = root / "assets"
    return {
        "assets": str(assets),
        "output": str(assets / "keras_skim"),
        "golden": str(root / "golden"),
        "exports": tiny_exports,
        "stdout": (root / "stdout.txt").read_text(encoding="utf-8"),
    }


def _run_release(root, tiny_exports):
    (root / "assets").mkdir()
    shutil.copyfile(os.path.join(APP_MAIN, "assets", "sample_reviews.json"), root / "assets" / "sample_reviews.json")
    out = build_assets(root, tiny_exports.values(), run_pipeline, "--bench-samples", "10")
    (root / "stdout.txt").write_text(out, encoding="utf-8")
