package org.kerasskim.demo.core;

/**
 * What the model did with one token: the codes of the {@code read_mask} output
 * ({@code keras_skim.contracts.TOKEN_*}), named in {@code metadata.json}.
 */
public enum TokenState {
    /** Read: the big cell (a skim model) or the LSTM (a jump model) ran on it (code 1). */
    READ,
    /** Skimmed by the small cell, or skipped by a jump model's skip agent (code 0). */
    SKIMMED,
    /** Jumped over: nothing ran (code 2, structural-jump models). */
    JUMPED,
    /** Punctuation a jump model steers its jumps by and never reads (code 3); shown plain. */
    NOT_A_WORD;

    /**
     * The state named by a code's name in metadata.json ("read", "skimmed" or "skipped", "jumped",
     * "not a word" or "punctuation"), or null.
     */
    public static TokenState fromName(String name) {
        if ("read".equals(name)) {
            return READ;
        }
        if ("skimmed".equals(name) || "skim".equals(name) || "skipped".equals(name)) {
            return SKIMMED;
        }
        if ("jumped".equals(name) || "jump".equals(name)) {
            return JUMPED;
        }
        if ("not a word".equals(name) || "not_a_word".equals(name) || "punctuation".equals(name)) {
            return NOT_A_WORD;
        }
        return null;
    }
}
