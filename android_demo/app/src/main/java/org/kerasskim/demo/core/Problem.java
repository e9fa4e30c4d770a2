package org.kerasskim.demo.core;

/**
 * Something the app cannot do, as a value the UI shows instead of crashing: a kind and one line
 * naming the file or model and what was expected.
 */
public final class Problem {
    /** What went wrong. */
    public enum Kind {
        /** An asset file is not in the APK (the release assets were not built). */
        MISSING_ASSET,
        /** catalog.json, bench_texts.json or sample_reviews.json is not what the app expects. */
        BAD_CATALOG,
        /** A model's metadata.json is unreadable or does not match its catalog entry. */
        BAD_METADATA,
        /** A model's tokenizer.json is unreadable or has other rules. */
        BAD_TOKENIZER,
        /** libkeras_skim_jni.so (or the LiteRT library it needs) could not be loaded. */
        NATIVE_LIBRARY,
        /** LiteRT refused the model, e.g. a custom op that is not registered. */
        MODEL_LOAD,
        /** A run failed. */
        RUN
    }

    public final Kind kind;
    public final String message;

    public Problem(Kind kind, String message) {
        this.kind = kind;
        this.message = oneLine(message);
    }

    @Override
    public String toString() {
        return message;
    }

    /** Collapses whitespace so that a message always fits one line. */
    static String oneLine(String text) {
        if (text == null) {
            return "";
        }
        return text.trim().replaceAll("\\s+", " ");
    }
}
