package org.kerasskim.demo.core;

import java.nio.ByteBuffer;

/**
 * A keras-skim export ({@code model.tflite}) compiled for the CPU through the LiteRT C API, with
 * keras-skim's custom ops (KerasSkimLSTM) registered: the same C++ runner as the Python runtime
 * and {@code keras-skim bench}. Needs {@link NativeLibrary#loadBundled} (or
 * {@link NativeLibrary#loadFromPath}) first. A model may be used from any thread, one run at a
 * time.
 */
public final class NativeModel implements AutoCloseable {
    private long handle;

    private NativeModel(long handle) {
        this.handle = handle;
    }

    /**
     * Compiles a model. Every problem (no shim, no LiteRT library, not a TFLite model, a custom
     * op keras-skim does not provide, a signature without token_ids) is found here.
     *
     * @param tfliteModel the .tflite bytes from its position to its limit (copied; a memory-mapped
     *     asset is fine)
     * @param numThreads CPU threads, at least 1 (the benchmark uses 1)
     */
    public static NativeModel load(ByteBuffer tfliteModel, int numThreads) throws ModelException {
        if (tfliteModel == null || !tfliteModel.hasRemaining()) {
            throw new ModelException("the model buffer is empty");
        }
        if (numThreads < 1) {
            throw new ModelException("numThreads must be at least 1, got " + numThreads);
        }
        ByteBuffer buffer = tfliteModel.duplicate();
        try {
            if (buffer.isDirect()) {
                return new NativeModel(nativeLoad(buffer, null, buffer.position(), buffer.remaining(),
                        numThreads, NativeLibrary.liteRtPath()));
            }
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            return new NativeModel(nativeLoad(null, bytes, 0, bytes.length, numThreads,
                    NativeLibrary.liteRtPath()));
        } catch (UnsatisfiedLinkError e) {
            throw new ModelException("the keras-skim JNI shim is not loaded (call NativeLibrary.loadBundled first)");
        }
    }

    /**
     * Runs the model on one text's token ids (the input is resized to [1, tokenIds.length]).
     *
     * @param threshold read a token iff p(read) >= threshold (ignored by models without one)
     */
    public synchronized RunResult run(int[] tokenIds, float threshold) throws ModelException {
        if (handle == 0) {
            throw new ModelException("the model is closed");
        }
        if (tokenIds == null || tokenIds.length == 0) {
            throw new ModelException("no token ids: a text needs at least one token");
        }
        if (Float.isNaN(threshold)) {
            throw new ModelException("the threshold is NaN");
        }
        return nativeRun(handle, tokenIds, threshold);
    }

    /** Frees the native model; later runs throw. */
    @Override
    public synchronized void close() {
        if (handle != 0) {
            nativeClose(handle);
            handle = 0;
        }
    }

    private static native long nativeLoad(ByteBuffer direct, byte[] bytes, int offset, int length,
                                          int numThreads, String liteRtPath) throws ModelException;

    private static native RunResult nativeRun(long handle, int[] tokenIds, float threshold)
            throws ModelException;

    private static native void nativeClose(long handle);
}
