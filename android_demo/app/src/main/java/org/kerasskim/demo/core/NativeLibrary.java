package org.kerasskim.demo.core;

/**
 * Loads the JNI shim ({@code libkeras_skim_jni.so}: keras-skim's custom ops and a runner over
 * the LiteRT 2.x C API, built by {@code app/src/main/cpp/CMakeLists.txt}) and says where LiteRT's
 * C library is. The shim links no LiteRT: it opens {@code libLiteRt.so} with dlopen when the
 * first model is loaded.
 */
public final class NativeLibrary {
    /** Environment variable naming libLiteRt.so when {@link #setLiteRtPath} was not called. */
    public static final String LITERT_PATH_ENV = "KERAS_SKIM_LITERT_LIB";

    private static volatile String liteRtPath;

    private NativeLibrary() {
    }

    /** Loads the shim packaged in the app (Android). */
    public static void loadBundled() {
        System.loadLibrary("keras_skim_jni");
    }

    /** Loads the shim from a file (a desktop JVM). */
    public static void loadFromPath(String absolutePath) {
        System.load(absolutePath);
    }

    /**
     * Where libLiteRt.so is, for a desktop JVM (for example the one in the {@code ai-edge-litert}
     * wheel). Takes effect for the first model loaded in the process; later models share that
     * library. When never called: {@code $KERAS_SKIM_LITERT_LIB}, else the name
     * {@code libLiteRt.so} searched by the dynamic loader, which on Android finds the library of
     * the app's LiteRT AAR.
     */
    public static void setLiteRtPath(String absolutePath) {
        liteRtPath = absolutePath;
    }

    static String liteRtPath() {
        return liteRtPath;
    }
}
