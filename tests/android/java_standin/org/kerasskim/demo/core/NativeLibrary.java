package org.kerasskim.demo.core;

/** TEST-ONLY stand-in for the capi branch's class of the same name (same public API). */
public final class NativeLibrary {
    private NativeLibrary() {
    }

    public static void loadBundled() {
        System.loadLibrary("keras_skim_jni");
    }

    public static void loadFromPath(String absolutePath) {
        System.load(absolutePath);
    }
}
