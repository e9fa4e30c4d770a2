package org.kerasskim.demo.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** One text as a model sees it: its tokens and their ids, cut at the model's max_length. */
public final class Encoded {
    public final List<String> tokens;
    public final int[] ids;

    public Encoded(List<String> tokens, int[] ids) {
        this.tokens = Collections.unmodifiableList(tokens);
        this.ids = ids;
    }

    /**
     * {@code SkimRunner.encode}: the tokenizer's ids cut at {@code maxLength} (the metadata's, not
     * the tokenizer's), with their tokens; padding ids, which a model must never see, dropped.
     */
    public static Encoded of(String text, Tokenizer tokenizer, Integer maxLength) {
        List<String> tokens = Tokenizer.tokenize(text);
        int[] ids = tokenizer.encodeText(text, maxLength);
        List<String> keptTokens = new ArrayList<>(ids.length);
        int kept = 0;
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] != Tokenizer.PAD_ID) {
                ids[kept++] = ids[i];
                keptTokens.add(tokens.get(i));
            }
        }
        int[] out = new int[kept];
        System.arraycopy(ids, 0, out, 0, kept);
        return new Encoded(keptTokens, out);
    }
}
