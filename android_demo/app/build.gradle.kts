plugins {
    alias(libs.plugins.android.application)
}

android {
    namespace = "org.kerasskim.demo"
    // Android 16 (API 36): within AGP 9.5's supported range (up to 37), see gradle/libs.versions.toml.
    compileSdk = 36

    defaultConfig {
        applicationId = "org.kerasskim.demo"
        // LiteRT 2.x needs API 23 or later; nothing in the app needs more than 26.
        minSdk = 26
        // Targeting 35+ makes the window edge to edge on Android 15+; MainActivity pads its content
        // by the system bars' and keyboard's insets (and Android 16 removed the opt-out).
        targetSdk = 36
        versionCode = 1
        versionName = "0.1.0"
        ndk {
            // phones, and the x86_64 emulator
            abiFilters += listOf("arm64-v8a", "x86_64")
        }
        // printed in the Benchmark report's "versions" line
        buildConfigField("String", "LITERT_VERSION", "\"${libs.versions.litert.get()}\"")
    }

    buildTypes {
        release {
            isMinifyEnabled = false
            // Signed with the debug key so that the release build (the one to time) installs
            // from Android Studio without a keystore. Use your own key to publish.
            signingConfig = signingConfigs.getByName("debug")
        }
    }

    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_17
        targetCompatibility = JavaVersion.VERSION_17
    }

    buildFeatures {
        buildConfig = true
    }

    // The JNI shim and keras-skim's custom ops, compiled from the library's own C++ sources
    // (keras_skim/litert_ops/) in place; see src/main/cpp/CMakeLists.txt.
    externalNativeBuild {
        cmake {
            path = file("src/main/cpp/CMakeLists.txt")
            version = "3.22.1"
        }
    }

    // LiteRT memory-maps model.tflite from the APK, which needs it stored uncompressed.
    androidResources {
        noCompress += "tflite"
    }
}

dependencies {
    // Packages libLiteRt.so, which the JNI shim opens for the LiteRT C API.
    implementation(libs.litert)
}
