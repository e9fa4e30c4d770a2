package org.kerasskim.demo.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The tokens of a text marked the way {@code keras-skim show} marks them: read words bold,
 * skimmed (or skipped) words grey, jumped words apart (lighter still, struck through),
 * punctuation that a jump model does not read plain. The UI turns {@link #segments} into spans;
 * {@link #plain} is the terminal rendering without colour.
 */
public final class Highlight {
    /** A token's character range in {@link #text}. */
    public static final class Segment {
        public final int start;
        public final int end;
        public final TokenState state;

        Segment(int start, int end, TokenState state) {
            this.start = start;
            this.end = end;
            this.state = state;
        }
    }

    /** The tokens joined by single spaces, as {@code keras-skim show} prints them. */
    public final String text;
    public final List<Segment> segments;

    private Highlight(String text, List<Segment> segments) {
        this.text = text;
        this.segments = Collections.unmodifiableList(segments);
    }

    public static Highlight of(List<String> tokens, List<TokenState> states) {
        if (tokens.size() != states.size()) {
            throw new IllegalArgumentException(tokens.size() + " tokens but " + states.size() + " states");
        }
        StringBuilder text = new StringBuilder();
        List<Segment> segments = new ArrayList<>(tokens.size());
        for (int i = 0; i < tokens.size(); i++) {
            if (i > 0) {
                text.append(' ');
            }
            int start = text.length();
            text.append(tokens.get(i));
            segments.add(new Segment(start, text.length(), states.get(i)));
        }
        return new Highlight(text.toString(), segments);
    }

    public static Highlight of(Prediction prediction) {
        return of(prediction.tokens, prediction.states);
    }

    /**
     * {@code keras_skim.cli.show_command.render_terminal(tokens, codes, color=False)}: read
     * tokens as they are, skimmed or skipped ones in [brackets], jumped ones in {braces},
     * punctuation that is not a word as it is.
     */
    public String plain() {
        StringBuilder out = new StringBuilder();
        for (Segment s : segments) {
            if (out.length() > 0) {
                out.append(' ');
            }
            String token = text.substring(s.start, s.end);
            switch (s.state) {
                case READ:
                case NOT_A_WORD:
                    out.append(token);
                    break;
                case SKIMMED:
                    out.append('[').append(token).append(']');
                    break;
                default:
                    out.append('{').append(token).append('}');
            }
        }
        return out.toString();
    }
}
