"""The Gradle wrapper of android_demo/: the jar is Gradle's own (its published checksum), the
wrapper properties pin a checksummed distribution, and `gradlew` starts the jar, which installs a
distribution only when its SHA-256 matches. No web here: the runs use a stand-in distribution
(one class named like Gradle's launcher that prints its arguments), served from a file: URL."""

import hashlib
import os
import re
import shutil
import subprocess
import zipfile

import pytest

from tests.android.conftest import ANDROID

WRAPPER = os.path.join(ANDROID, "gradle", "wrapper")
# Gradle 9.4.1's gradle-wrapper.jar, as published in https://gradle.org/release-checksums/ (the jar here
# was taken verbatim from the npm package @react-native/gradle-plugin 0.88.1, a Gradle 9.4.1 project).
WRAPPER_JAR_SHA256 = "55243ef57851f12b070ad14f7f5bb8302daceeebc5bce5ece5fa6edb23e1145c"


def _sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _properties():
    with open(os.path.join(WRAPPER, "gradle-wrapper.properties"), encoding="utf-8") as f:
        lines = [line.strip() for line in f if line.strip() and not line.lstrip().startswith("#")]
    return dict(line.split("=", 1) for line in lines)


def test_wrapper_jar_is_gradles():
    jar = os.path.join(WRAPPER, "gradle-wrapper.jar")
    assert _sha256(jar) == WRAPPER_JAR_SHA256
    with zipfile.ZipFile(jar) as z:
        manifest = z.read("META-INF/MANIFEST.MF").decode("utf-8")
    assert "Main-Class: org.gradle.wrapper.GradleWrapperMain" in manifest


def test_properties_pin_a_checksummed_distribution():
    props = _properties()
    url = props["distributionUrl"].replace("\\:", ":")
    assert re.fullmatch(r"https://services\.gradle\.org/distributions/gradle-\d+\.\d+(\.\d+)?-bin\.zip", url)
    assert re.fullmatch(r"[0-9a-f]{64}", props["distributionSha256Sum"])
    assert props["validateDistributionUrl"] == "true"


def test_scripts():
    gradlew = os.path.join(ANDROID, "gradlew")
    assert os.access(gradlew, os.X_OK)
    script = open(gradlew, encoding="utf-8").read()
    assert script.startswith("#!/bin/sh\n") and "org.gradle.wrapper.GradleWrapperMain" in script
    with open(os.path.join(ANDROID, "gradlew.bat"), "rb") as f:
        bat = f.read()
    assert bat.count(b"\r\n") == bat.count(b"\n")  # cmd.exe needs CRLF line ends
    assert b"org.gradle.wrapper.GradleWrapperMain" in bat and b"gradle\\wrapper\\gradle-wrapper.jar" in bat


@pytest.fixture(scope="module")
def stand_in(tmp_path_factory):
    """(project copy, distribution zip): android_demo's gradlew and gradle/ with a distribution
    whose launcher prints "STAND-IN GRADLE" and its arguments."""
    for tool in ("javac", "java", "sh"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not found: needed to run the Gradle wrapper")
    root = tmp_path_factory.mktemp("wrapper")
    source = root / "src" / "org" / "gradle" / "launcher" / "GradleMain.java"
    source.parent.mkdir(parents=True)
    source.write_text(
        "package org.gradle.launcher;\n"
        "public final class GradleMain {\n"
        "    public static void main(String[] args) {\n"
        '        System.out.println("STAND-IN GRADLE " + String.join("|", args));\n'
        "    }\n"
        "}\n",
        encoding="utf-8",
    )
    classes = root / "classes"
    done = subprocess.run(
        ["javac", "--release", "8", "-Xlint:-options", "-d", str(classes), str(source)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    launcher = root / "gradle-launcher-0.1.jar"
    with zipfile.ZipFile(launcher, "w") as z:
        z.write(classes / "org" / "gradle" / "launcher" / "GradleMain.class", "org/gradle/launcher/GradleMain.class")
    distribution = root / "gradle-0.1-bin.zip"
    with zipfile.ZipFile(distribution, "w") as z:  # with folder entries, as Gradle's zips (the wrapper needs them)
        z.writestr("gradle-0.1/", "")
        z.writestr("gradle-0.1/lib/", "")
        z.write(launcher, "gradle-0.1/lib/gradle-launcher-0.1.jar")
    project = root / "project"
    project.mkdir()
    shutil.copy2(os.path.join(ANDROID, "gradlew"), project / "gradlew")
    shutil.copytree(WRAPPER, project / "gradle" / "wrapper")
    return project, distribution


def _run_wrapper(project, distribution, checksum, home):
    props = _properties()
    props["distributionUrl"] = distribution.as_uri().replace(":", "\\:")
    props["distributionSha256Sum"] = checksum
    (project / "gradle" / "wrapper" / "gradle-wrapper.properties").write_text(
        "".join(f"{k}={v}\n" for k, v in props.items()), encoding="utf-8"
    )
    env = dict(os.environ, GRADLE_USER_HOME=str(home))
    return subprocess.run(
        [str(project / "gradlew"), "assembleDebug", "--offline"],
        cwd=str(project / "gradle"),  # any folder: gradlew finds its project from its own path
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_gradlew_runs_the_checksummed_distribution(stand_in, tmp_path):
    project, distribution = stand_in
    done = _run_wrapper(project, distribution, _sha256(distribution), tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert "STAND-IN GRADLE assembleDebug|--offline" in done.stdout


def test_gradlew_refuses_a_distribution_with_another_checksum(stand_in, tmp_path):
    project, distribution = stand_in
    done = _run_wrapper(project, distribution, "0" * 64, tmp_path / "home")
    assert done.returncode != 0
    assert "Verification of Gradle distribution failed" in done.stderr
    assert "STAND-IN GRADLE" not in done.stdout


def test_gradlew_names_a_missing_java(stand_in, tmp_path):
    project, _ = stand_in
    env = {"PATH": "/nonexistent", "HOME": str(tmp_path)}
    done = subprocess.run(["/bin/sh", str(project / "gradlew"), "tasks"], capture_output=True, text=True, env=env)
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "gradlew: error: no java on the PATH and JAVA_HOME is not set: install a JDK 17+ or set JAVA_HOME"
    )
