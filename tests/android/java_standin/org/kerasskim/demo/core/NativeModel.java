package org.kerasskim.demo.core;

/**
 * TEST-ONLY stand-in for the capi branch's class of the same name (same public API). It has no
 * native code: {@link #load} always fails the way a model whose native side is missing fails.
 */
public final class NativeModel implements AutoCloseable {
    private NativeModel() {
    }

    public static NativeModel load(java.nio.ByteBuffer tfliteModel, int numThreads) throws ModelException {
        throw new ModelException("stand-in NativeModel: no JNI shim in this build");
    }

    public RunResult run(int[] tokenIds, float threshold) throws ModelException {
        throw new ModelException("stand-in NativeModel: no JNI shim in this build");
    }

    @Override
    public void close() {
    }
}
