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
    /** Null: every text runs at its own length (the input resized when the length changes). */
    private final TokenPadding padding;

    private NativeModel(long handle, TokenPadding padding) {
        this.handle = handle;
        this.padding = padding;
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
        return load(tfliteModel, numThreads, false);
    }

    /**
     * As {@link #load(ByteBuffer, int)}; with {@code padTokens} the texts run at the padded input
     * lengths of {@link TokenPadding} (for an export that {@link ModelMetadata#padsTokens}), so
     * that most length changes keep the input's shape and buffers.
     */
    public static NativeModel load(ByteBuffer tfliteModel, int numThreads, boolean padTokens)
            throws ModelException {
        if (tfliteModel == null || !tfliteModel.hasRemaining()) {
            throw new ModelException("the model buffer is empty");
        }
        if (numThreads < 1) {
            throw new ModelException("numThreads must be at least 1, got " + numThreads);
        }
        ByteBuffer buffer = tfliteModel.duplicate();
        TokenPadding padding = padTokens ? new TokenPadding() : null;
        try {
            if (buffer.isDirect()) {
                return new NativeModel(nativeLoad(buffer, null, buffer.position(), buffer.remaining(),
                        numThreads, NativeLibrary.liteRtPath()), padding);
            }
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            return new NativeModel(nativeLoad(null, bytes, 0, bytes.length, numThreads,
                    NativeLibrary.liteRtPath()), padding);
        } catch (UnsatisfiedLinkError e) {
            throw new ModelException("the keras-skim JNI shim is not loaded (call NativeLibrary.loadBundled first)");
        }
    }

    /**
     * Runs the model on one text's token ids: the input is [1, tokenIds.length], or with token
     * padding the ids padded to the input length {@link TokenPadding} keeps, the per-token outputs
     * cut back to {@code tokenIds.length}.
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
        if (padding == null) {
            return nativeRun(handle, tokenIds, tokenIds.length, threshold);
        }
        return nativeRun(handle, padding.pad(tokenIds), tokenIds.length, threshold);
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

    /** Runs ids [1, tokenIds.length], of which the first {@code count} are the text's. */
    private static native RunResult nativeRun(long handle, int[] tokenIds, int count, float threshold)
            throws ModelException;

    private static native void nativeClose(long handle);
}
