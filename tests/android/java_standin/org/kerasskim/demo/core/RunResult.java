package org.kerasskim.demo.core;

/** TEST-ONLY stand-in for the capi branch's class of the same name (same public fields). */
public final class RunResult {
    public final float[] logits;
    public final int[] tokenMask;
    public final int readCount;
    public final long nanos;

    public RunResult(float[] logits, int[] tokenMask, int readCount, long nanos) {
        this.logits = logits;
        this.tokenMask = tokenMask;
        this.readCount = readCount;
        this.nanos = nanos;
    }
}
