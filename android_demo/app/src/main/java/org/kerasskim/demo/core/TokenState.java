package org.kerasskim.demo.core;

/** What the model did with one token: the codes of the {@code read_mask} output, named in
 * {@code metadata.json}. */
public enum TokenState {
    /** Read by the big cell (code 1). */
    READ,
    /** Skimmed: only the small cell ran (code 0). */
    SKIMMED,
    /** Jumped over: no cell ran (code 2, structural-jump models). */
    JUMPED;

    /** The state named by a code's name in metadata.json ("read", "skimmed", "jumped"), or null. */
    public static TokenState fromName(String name) {
        if ("read".equals(name)) {
            return READ;
        }
        if ("skimmed".equals(name) || "skim".equals(name)) {
            return SKIMMED;
        }
        if ("jumped".equals(name) || "jump".equals(name)) {
            return JUMPED;
        }
        return null;
    }
}
