package org.kerasskim.demo.core;

import java.util.Arrays;

/**
 * Runs texts of many lengths at a few input lengths, as {@code keras_skim.runtime.token_padding}
 * does for the Python runtime: the token ids are padded with the padding id to a power of two
 * (at least {@link #MIN_LENGTH}), and a shorter text keeps the current input length while it is
 * at most {@link #SLACK} times the text's own power of two. A new input length costs a LiteRT
 * input resize and new tensor buffers; a padding step costs a custom op a comparison (it skips
 * id 0, keeping the state, as Keras' mask_zero does), so the outputs are those of the unpadded
 * text, cut back to its length. For exports with keras-skim's custom ops whose metadata names id
 * 0 as padding ({@link ModelMetadata#padsTokens}); a builtin graph pays a full step per padding
 * token, so it runs unpadded. Not thread-safe: {@link NativeModel} calls it under its lock.
 */
public final class TokenPadding {
    /** The shortest input length: short texts share one shape ({@code token_padding.MIN_LENGTH}). */
    public static final int MIN_LENGTH = 16;
    /** How many times its own power of two a text may be padded to ({@code token_padding.SLACK}). */
    public static final int SLACK = 8;
    /**
     * The id padding steps carry ({@code keras_skim.contracts.PADDING_ID}, {@link
     * Tokenizer#PAD_ID}); kept here so that the native API ({@link NativeModel}) needs no tokenizer.
     */
    public static final int PADDING_ID = 0;

    private int[] buffer = new int[0];
    private int low;  // texts of low < T <= buffer.length keep the length (paddedLength, in one comparison)
    private int filled;  // tokens the last call wrote into the buffer (beyond: padding)

    /**
     * {@code token_padding.padded_length}: the input length at which to run a text of
     * {@code length} tokens when the input has {@code current} tokens now (0: never set).
     */
    public static int paddedLength(int length, int current) {
        if (length < 1) {
            throw new IllegalArgumentException("a text needs at least one token, got " + length);
        }
        int bucket = Math.max(MIN_LENGTH, length == 1 ? 1 : Integer.highestOneBit(length - 1) << 1);
        if (current > 0 && length <= current && current <= (long) SLACK * bucket) {
            return current;
        }
        return bucket;
    }

    /**
     * The ids padded to the input length {@link #paddedLength} picks: a buffer this object keeps
     * (the next call overwrites it), padded with {@link #PADDING_ID}.
     */
    public int[] pad(int[] ids) {
        int count = ids.length;
        if (!(low < count && count <= buffer.length)) {
            resize(paddedLength(count, buffer.length));
        }
        System.arraycopy(ids, 0, buffer, 0, count);
        if (filled > count) {
            Arrays.fill(buffer, count, filled, PADDING_ID);
        }
        filled = count;
        return buffer;
    }

    /** The input length the model has now (0 before the first text). */
    public int length() {
        return buffer.length;
    }

    private void resize(int length) {
        if (length != buffer.length) {
            buffer = new int[length];
            Arrays.fill(buffer, PADDING_ID);
            filled = 0;
        }
        // `length` is a power of two: it is kept while the text's own power of two is >= length / SLACK.
        int smallest = length / SLACK;
        low = smallest > MIN_LENGTH ? smallest / 2 : 0;
    }
}
