"""The app's JNI shim on a desktop JVM: android_demo/app/src/main/cpp/
keras_skim_jni.cc and keras_skim/litert_ops/ built with g++ against the JDK's
JNI headers, the Java API (NativeLibrary, NativeModel, RunResult,
ModelException) compiled for Java 8, the shim loaded with System.load and
pointed at the ai-edge-litert wheel's libLiteRt.so: the same outputs as the
Python runtime, and clean errors."""

import json
import os
import shutil
import subprocess

import numpy as np
import pytest

from keras_skim import contracts
from keras_skim.litert_ops import native_build

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPS = os.path.join(ROOT, "keras_skim", "litert_ops")
CPP = os.path.join(ROOT, "android_demo", "app", "src", "main", "cpp")
CORE = os.path.join(ROOT, "android_demo", "app", "src", "main", "java", "org", "kerasskim", "demo", "core")
NATIVE_API = ("NativeLibrary.java", "NativeModel.java", "RunResult.java", "ModelException.java", "TokenPadding.java")
CHECK = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "jni_java", "org", "kerasskim", "demo", "jnitest", "JniCheck.java"
)
THRESHOLDS = (0.0, 0.5, 1.5)


def _jni_include():
    home = os.environ.get("JAVA_HOME") or os.path.dirname(os.path.dirname(os.path.realpath(shutil.which("javac"))))
    include = os.path.join(home, "include")
    if not os.path.isfile(os.path.join(include, "jni.h")):
        pytest.skip(f"jni.h not found under {include}: the JNI shim needs a JDK's headers (set JAVA_HOME)")
    return [include, os.path.join(include, "linux")]


def shim_sources():
    """The shim and every C++ source of the op library but its ctypes
    interface: what CMakeLists.txt builds."""
    return [os.path.join(CPP, "keras_skim_jni.cc")] + native_build.compiled_sources(OPS, c_interface=False)


@pytest.fixture(scope="session")
def jni_build(shim, tmp_path_factory):
    """(shim .so, Java classes folder, libLiteRt.so): the shim is the one CMakeLists.txt builds
    (tests/android/conftest.py, warnings as errors; test_cmake_source_list_names_the_library_sources
    checks that it compiles shim_sources()), the Java API compiled here once per session."""
    for tool in ("javac", "java"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not found: the JNI shim check needs a JDK")
    from keras_skim.runtime.litert_runner import litert_library_path

    out = tmp_path_factory.mktemp("jni")
    classes = str(out / "classes")
    compiled = subprocess.run(
        [
            "javac",
            "--release",
            "8",
            "-Xlint:all",
            "-Xlint:-options",
            "-Werror",
            "-encoding",
            "UTF-8",
            "-d",
            classes,
            *[os.path.join(CORE, f) for f in NATIVE_API],
            CHECK,
        ],
        capture_output=True,
        text=True,
    )
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    return shim[0], classes, litert_library_path()


class Jvm:
    """One JVM running JniCheck; `ask(line)` -> its JSON answer."""

    def __init__(self, build):
        shim, classes, litert = build
        self.process = subprocess.Popen(
            ["java", "-Xshare:auto", "-cp", classes, "org.kerasskim.demo.jnitest.JniCheck", shim, litert],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def ask(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise AssertionError(f"the JVM exited ({self.process.wait()}): {self.process.stderr.read()[-3000:]}")
        return json.loads(answer)

    def close(self):
        self.process.stdin.close()
        code = self.process.wait(timeout=60)
        assert code == 0, self.process.stderr.read()[-3000:]


@pytest.fixture(scope="module")
def jvm(jni_build):
    process = Jvm(jni_build)
    yield process
    process.close()


@pytest.fixture(scope="module")
def models(exported, custom_exported):
    """{name: export folder}: builtin Skim-LSTM and LSTM, custom-op Skim-LSTM at d' = 4 and 0."""
    folders = {"skim builtin": exported("skim")[1], "lstm builtin": exported("lstm")[1]}
    for name in ("skim", "skip"):
        folders[f"{name} custom"] = custom_exported(name)
    return folders


def _ids():
    rng = np.random.default_rng(11)
    padded = rng.integers(1, 50, 10).astype(np.int32)
    padded[[2, 3]] = 0
    return [rng.integers(1, 50, n).astype(np.int32) for n in (1, 7, 29)] + [padded]


@pytest.mark.parametrize("name", ["skim builtin", "lstm builtin", "skim custom", "skip custom"])
def test_shim_matches_python_runner(jvm, models, name):
    from keras_skim.runtime import SkimRunner

    folder = models[name]
    python = SkimRunner(folder)
    buffer = "heap" if name.startswith("skim") else "mapped"
    assert jvm.ask(f"load m {buffer} {os.path.join(folder, 'model.tflite')}") == {"loaded": "m"}
    reads = 0
    for threshold in THRESHOLDS:
        for ids in _ids():
            got = jvm.ask(f"run m {threshold} {' '.join(map(str, ids))}")
            want = python.run_ids(ids, threshold)
            np.testing.assert_allclose(got["logits"], want["logits"].reshape(-1), rtol=0, atol=1e-5)
            assert got["mask"] == np.rint(want["read_mask"].reshape(-1)).astype(int).tolist()
            assert got["count"] == int(want["read_count"].reshape(-1)[0]) == sum(v == 1 for v in got["mask"])
            assert got["nanos"] > 0 and len(got["mask"]) == len(ids)
            reads += got["count"] if threshold == 0.5 else 0
    if "lstm" not in name:  # the decisions at 0.5 are not all alike
        assert 0 < reads < sum(len(i) for i in _ids()), reads
    assert jvm.ask("close m") == {"closed": "m"}


def test_unregistered_custom_op_is_a_model_exception(jvm, models, tmp_path):
    """A custom op keras-skim does not provide (the model's op renamed):
    NativeModel.load throws a one-line ModelException and the JVM goes on."""
    data = open(os.path.join(models["skim custom"], "model.tflite"), "rb").read()
    renamed = tmp_path / "renamed.tflite"
    renamed.write_bytes(data.replace(b"KerasSkimLSTM", b"KerasSkimLSTX"))
    answer = jvm.ask(f"load bad mapped {renamed}")
    assert answer == {
        "error": "the model needs the custom op 'KerasSkimLSTX', which is not registered "
        f"(keras-skim provides {', '.join(contracts.CUSTOM_OPS.values())})"
    }
    not_a_model = tmp_path / "text.tflite"
    not_a_model.write_text("hello, this is not a model")
    assert jvm.ask(f"load bad heap {not_a_model}") == {"error": "not a TFLite model (no TFL3 identifier)"}
    # the JVM is fine: a good model still runs, and misuse is an exception too
    assert jvm.ask(f"load ok mapped {os.path.join(models['skim custom'], 'model.tflite')}") == {"loaded": "ok"}
    assert "logits" in jvm.ask("run ok 0.5 4 8 15")
    assert jvm.ask("run ok 0.5") == {"error": "no token ids: a text needs at least one token"}
    assert jvm.ask("run ok NaN 4 8") == {"error": "the threshold is NaN"}
    assert jvm.ask("close ok") == {"closed": "ok"}


def test_cmake_source_list_names_the_library_sources(tmp_path):
    """CMakeLists.txt configures on a desktop (JNI headers from the JDK) and
    builds exactly the shim and litert_ops' sources, in place."""
    if shutil.which("cmake") is None:
        pytest.skip("cmake not found: the CMakeLists.txt check needs cmake")
    if shutil.which("javac") is None:
        pytest.skip("javac not found: configuring the shim needs a JDK")
    include = _jni_include()
    env = dict(os.environ, JAVA_HOME=os.path.dirname(include[0]))
    done = subprocess.run(
        ["cmake", "-G", "Unix Makefiles", "-S", CPP, "-B", str(tmp_path)], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stdout + done.stderr
    make = open(tmp_path / "CMakeFiles" / "keras_skim_jni.dir" / "build.make").read()
    built = sorted(
        {
            os.path.realpath(line.split(": ", 1)[1].strip())
            for line in make.splitlines()
            if ".cc.o: " in line and line.split(": ", 1)[1].strip().endswith(".cc")
        }
    )
    assert built == sorted(os.path.realpath(p) for p in shim_sources())
