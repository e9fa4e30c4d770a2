package org.kerasskim.demo.core;

import java.util.Collections;
import java.util.List;

/** One text classified by one model at one threshold: what the UI shows. */
public final class Prediction {
    public final List<String> tokens;
    public final int[] ids;
    /** One state per token. */
    public final List<TokenState> states;
    /** The model's pre-activation output. */
    public final float[] logits;
    public final double[] probabilities;
    public final int predictedClass;
    public final String label;
    public final float threshold;
    /** Wall time of the invoke alone. */
    public final long nanos;
    /** Whether a jump model made it (read, skipped and jumped words; punctuation not read). */
    public final boolean jumps;

    public Prediction(List<String> tokens, int[] ids, List<TokenState> states, float[] logits, String activation,
                      CatalogEntry entry, float threshold, long nanos) {
        this.tokens = Collections.unmodifiableList(tokens);
        this.ids = ids;
        this.states = Collections.unmodifiableList(states);
        this.logits = logits;
        this.probabilities = probabilitiesFromLogits(logits, activation);
        this.predictedClass = argmax(probabilities);
        this.label = entry.label(predictedClass);
        this.threshold = threshold;
        this.nanos = nanos;
        this.jumps = ModelMetadata.JUMP_MODEL_KIND.equals(entry.modelKind);
    }

    /** The probability of the predicted class. */
    public double probability() {
        return probabilities[predictedClass];
    }

    public int count(TokenState state) {
        int n = 0;
        for (TokenState s : states) {
            if (s == state) {
                n++;
            }
        }
        return n;
    }

    /**
     * e.g. "positive (87.3%); read 12 of 40 tokens, skimmed 70%", in the words of {@code
     * keras-skim show}; for a jump model "positive (87.3%); read 3 of 10 words (30%), skipped 0%,
     * jumped 70%", the fractions of the words (punctuation is not read).
     */
    public String summary() {
        StringBuilder out = new StringBuilder();
        out.append(label).append(" (").append(Fmt.fixed(100 * probability(), 1)).append("%)");
        if (jumps) {
            int words = tokens.size() - count(TokenState.NOT_A_WORD);
            if (words == 0) {
                return out.append("; the text has no words (punctuation is not read)").toString();
            }
            int read = count(TokenState.READ);
            return out.append("; read ").append(read).append(" of ").append(words).append(" words (")
                    .append(Fmt.percent0((double) read / words)).append("), skipped ")
                    .append(Fmt.percent0((double) count(TokenState.SKIMMED) / words)).append(", jumped ")
                    .append(Fmt.percent0((double) count(TokenState.JUMPED) / words)).toString();
        }
        int n = tokens.size();
        if (n > 0) {
            int read = count(TokenState.READ);
            out.append("; read ").append(read).append(" of ").append(n).append(" tokens, skimmed ")
                    .append(Fmt.percent0((double) count(TokenState.SKIMMED) / n));
            int jumped = count(TokenState.JUMPED);
            if (jumped > 0) {
                out.append(", jumped ").append(Fmt.percent0((double) jumped / n));
            }
        } else {
            out.append("; the text has no tokens");
        }
        return out.toString();
    }

    /**
     * {@code keras_skim.runtime.runner.probabilities_from_logits}: a single logit is a sigmoid
     * unit, giving [1 - p, p]; several are sigmoids or a softmax as the metadata says.
     */
    public static double[] probabilitiesFromLogits(float[] logits, String activation) {
        if (logits.length == 1) {
            double p = 1.0 / (1.0 + Math.exp(-(double) logits[0]));
            return new double[] {1.0 - p, p};
        }
        double[] out = new double[logits.length];
        if ("sigmoid".equals(activation)) {
            for (int i = 0; i < out.length; i++) {
                out[i] = 1.0 / (1.0 + Math.exp(-(double) logits[i]));
            }
            return out;
        }
        double max = Double.NEGATIVE_INFINITY;
        for (float v : logits) {
            max = Math.max(max, v);
        }
        double sum = 0;
        for (int i = 0; i < out.length; i++) {
            out[i] = Math.exp(logits[i] - max);
            sum += out[i];
        }
        for (int i = 0; i < out.length; i++) {
            out[i] /= sum;
        }
        return out;
    }

    /** The first index of the largest value, as {@code numpy.argmax}. */
    public static int argmax(double[] values) {
        int best = 0;
        for (int i = 1; i < values.length; i++) {
            if (values[i] > values[best]) {
                best = i;
            }
        }
        return best;
    }
}
