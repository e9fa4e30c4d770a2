// Top-level build file: the plugins are applied in app/build.gradle.kts.
plugins {
    alias(libs.plugins.android.application) apply false
}
