"""Sanity of the Android Studio project that cannot be built here (no Android SDK, NDK or
Gradle plugin on these machines): the Gradle files, the manifest, the CMake source list and the
asset names agree with each other, with the library's sources and with the release pipeline."""

import os
import re
import xml.etree.ElementTree as ET

import pytest

from export import release_assets
from tests.android.conftest import ANDROID, APP_MAIN

ANDROID_NS = "{http://schemas.android.com/apk/res/android}"


def _read(*parts):
    with open(os.path.join(ANDROID, *parts), encoding="utf-8") as f:
        return f.read()


def _versions():
    toml = _read("gradle", "libs.versions.toml")
    section = toml.split("[versions]")[1].split("[")[0]
    return dict(re.findall(r'^(\w+)\s*=\s*"([^"]+)"', section, re.M)), toml


# What the Android Gradle plugin release notes give for the plugin the catalog names (AGP 9.5:
# "The maximum API level that Android Gradle plugin 9.5 supports is API level 37", Gradle 9.6.0 minimum).
AGP_MINOR = (9, 5)
AGP_MAX_API = 37
AGP_MIN_GRADLE = (9, 6, 0)


def test_version_catalog():
    versions, toml = _versions()
    major, minor = (int(v) for v in versions["agp"].split(".")[:2])
    assert (major, minor) == AGP_MINOR  # change the constants above with the plugin
    assert int(versions["litert"].split(".")[0]) == 2  # LiteRT 2.x: libLiteRt.so with the C API
    assert 'group = "com.google.ai.edge.litert", name = "litert", version.ref = "litert"' in toml
    assert 'id = "com.android.application", version.ref = "agp"' in toml


def test_wrapper_properties_name_a_gradle_for_the_plugin():
    props = _read("gradle", "wrapper", "gradle-wrapper.properties")
    version = re.search(
        r"distributionUrl=https\\://services\.gradle\.org/distributions/gradle-([\d.]+)-bin\.zip", props
    ).group(1)
    assert tuple(int(v) for v in version.split(".")) >= AGP_MIN_GRADLE


def test_settings_and_root_build():
    settings = _read("settings.gradle.kts")
    assert 'include(":app")' in settings and "google()" in settings and "mavenCentral()" in settings
    assert "alias(libs.plugins.android.application) apply false" in _read("build.gradle.kts")


def test_app_build_file():
    gradle = _read("app", "build.gradle.kts")
    assert "alias(libs.plugins.android.application)" in gradle
    compile_sdk = int(re.search(r"compileSdk = (\d+)", gradle).group(1))
    target_sdk = int(re.search(r"targetSdk = (\d+)", gradle).group(1))
    assert 35 <= target_sdk <= compile_sdk <= AGP_MAX_API  # 35+: edge to edge, handled by MainActivity
    assert int(re.search(r"minSdk = (\d+)", gradle).group(1)) <= 26
    assert 'abiFilters += listOf("arm64-v8a", "x86_64")' in gradle
    assert 'noCompress += "tflite"' in gradle
    assert "implementation(libs.litert)" in gradle
    cmake = re.search(r'path = file\("([^"]+)"\)', gradle).group(1)
    assert cmake == "src/main/cpp/CMakeLists.txt"
    namespace = re.search(r'namespace = "([\w.]+)"', gradle).group(1)
    assert os.path.isdir(os.path.join(APP_MAIN, "java", *namespace.split(".")))
    assert "VERSION_17" in gradle  # AGP 9 needs JDK 17; the core itself keeps to Java 8's library


def test_manifest_launches_an_existing_activity():
    root = ET.parse(os.path.join(APP_MAIN, "AndroidManifest.xml")).getroot()
    assert root.get("package") is None  # AGP 8 takes the namespace from build.gradle.kts
    assert root.findall("uses-permission") == []
    (activity,) = root.find("application").findall("activity")
    name = activity.get(ANDROID_NS + "name")
    assert activity.get(ANDROID_NS + "exported") == "true"
    actions = [a.get(ANDROID_NS + "name") for a in activity.iter("action")]
    categories = [c.get(ANDROID_NS + "name") for c in activity.iter("category")]
    assert actions == ["android.intent.action.MAIN"] and categories == ["android.intent.category.LAUNCHER"]
    assert os.path.isfile(os.path.join(APP_MAIN, "java", "org", "kerasskim", "demo", name.lstrip(".") + ".java"))
    strings = ET.parse(os.path.join(APP_MAIN, "res", "values", "strings.xml")).getroot()
    names = {s.get("name") for s in strings.findall("string")}
    label = root.find("application").get(ANDROID_NS + "label")
    assert label.startswith("@string/") and label[len("@string/") :] in names
    theme = root.find("application").get(ANDROID_NS + "theme")
    styles = ET.parse(os.path.join(APP_MAIN, "res", "values", "themes.xml")).getroot()
    (style,) = [s for s in styles.findall("style") if "@style/" + s.get("name") == theme]
    assert style.get("parent").endswith(".NoActionBar")  # MainActivity handles the top inset itself


def test_activity_pads_its_root_for_the_window_insets():
    """targetSdk 35+: edge to edge; the listener is on the layout's root and covers the bars and the keyboard."""
    source = open(
        os.path.join(APP_MAIN, "java", "org", "kerasskim", "demo", "MainActivity.java"), encoding="utf-8"
    ).read()
    layout = ET.parse(os.path.join(APP_MAIN, "res", "layout", "activity_main.xml")).getroot()
    assert layout.get(ANDROID_NS + "id") == "@+id/root"
    assert "padForSystemBars(findViewById(R.id.root));" in source
    assert "setOnApplyWindowInsetsListener" in source
    for kind in ("systemBars", "displayCutout", "ime"):
        assert f"WindowInsets.Type.{kind}()" in source


def test_every_resource_the_activity_uses_exists():
    source = open(
        os.path.join(APP_MAIN, "java", "org", "kerasskim", "demo", "MainActivity.java"), encoding="utf-8"
    ).read()
    layout = open(os.path.join(APP_MAIN, "res", "layout", "activity_main.xml"), encoding="utf-8").read()
    ids = set(re.findall(r'android:id="@\+id/(\w+)"', layout))
    strings = {s.get("name") for s in ET.parse(os.path.join(APP_MAIN, "res", "values", "strings.xml")).getroot()}
    colors = {c.get("name") for c in ET.parse(os.path.join(APP_MAIN, "res", "values", "colors.xml")).getroot()}
    for kind, known in (("id", ids), ("string", strings), ("color", colors), ("layout", {"activity_main"})):
        used = set(re.findall(rf"(?<!android\.)\bR\.{kind}\.(\w+)", source))  # not android.R
        assert used and used <= known, (kind, used - known)
    assert set(re.findall(r"@string/(\w+)", layout)) <= strings
    assert set(re.findall(r"@color/(\w+)", layout)) <= colors


def test_cmake_builds_the_library_sources_in_place():
    """The shim's CMakeLists compiles keras_skim/litert_ops/ where it is: no copies in the app."""
    path = os.path.join(APP_MAIN, "cpp", "CMakeLists.txt")
    if not os.path.isfile(path):
        pytest.fail("android_demo/app/src/main/cpp/CMakeLists.txt is missing (the JNI shim of the capi branch)")
    cmake = open(path, encoding="utf-8").read()
    cpp_dir = os.path.dirname(path)
    dirs = re.findall(r'"\$\{CMAKE_CURRENT_SOURCE_DIR\}/([^"$]+)"', cmake)
    ops_dirs = [os.path.normpath(os.path.join(cpp_dir, d)) for d in dirs]
    library = os.path.join(os.path.dirname(ANDROID), "keras_skim", "litert_ops")
    assert library in ops_dirs, f"{path} does not point at {library}"
    files = [f for _, _, names in os.walk(library) for f in names]
    sources = [f for f in files if f.endswith(".cc")]
    assert "skim_lstm_core.cc" in sources
    named = re.findall(r"[\w/.${}-]+\.cc\b", cmake)
    for name in named:  # every source named literally exists, in cpp/ or in the library
        base = name.split("/")[-1]
        assert os.path.isfile(os.path.join(cpp_dir, base)) or base in sources, name
    copies = [f for f in os.listdir(cpp_dir) if f in files]
    assert copies == [], f"copied library sources in {cpp_dir}: {copies}"


def test_asset_names_agree_with_the_pipeline(probe):
    constants = probe.call("constants")
    assert os.path.relpath(release_assets.DEFAULT_OUTPUT, os.path.join(APP_MAIN, "assets")) == constants["asset_root"]
    assert release_assets.ASSET_ROOT == constants["asset_root"]
    assert (
        os.path.relpath(release_assets.SAMPLE_REVIEWS, os.path.join(APP_MAIN, "assets"))
        == constants["sample_reviews_path"]
    )
    assert constants["catalog_format"] == release_assets.CATALOG_FORMAT
    assert constants["bench_texts_format"] == release_assets.BENCH_TEXTS_FORMAT
    assert constants["golden_format"] == release_assets.GOLDEN_FORMAT
    gitignore = open(os.path.join(os.path.dirname(ANDROID), ".gitignore"), encoding="utf-8").read()
    assert "/android_demo/app/src/main/assets/keras_skim/" not in gitignore  # committed: the app runs from a clone
    assert "/android_demo/golden/" not in gitignore
    assert os.path.isfile(os.path.join(release_assets.DEFAULT_OUTPUT, "catalog.json"))
