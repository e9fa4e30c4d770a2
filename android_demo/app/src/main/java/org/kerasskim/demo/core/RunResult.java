package org.kerasskim.demo.core;

/** The outputs of one {@link NativeModel#run}. */
public final class RunResult {
    /** The model's logits (before the output activation), flattened. */
    public final float[] logits;
    /**
     * One value per input token, the codes of {@code keras_skim.contracts}: 1 = read, 0 = skimmed
     * (a jump model: skipped), 2 = jumped, 3 = not a word (a jump model's punctuation); all 1 for
     * models without a read mask (the LSTM baseline).
     */
    public final int[] tokenMask;
    /** Number of tokens the big cell (a jump model: the LSTM) read. */
    public final int readCount;
    /**
     * Native time of the run: the ids copied in (the input resized when its length changed: at
     * every new text length, or with token padding only when the padded length changes),
     * LiteRT's run, the outputs read; not the JNI array copies. What the benchmark times, like
     * {@code keras-skim bench} times one signature call.
     */
    public final long nanos;

    public RunResult(float[] logits, int[] tokenMask, int readCount, long nanos) {
        this.logits = logits;
        this.tokenMask = tokenMask;
        this.readCount = readCount;
        this.nanos = nanos;
    }
}
