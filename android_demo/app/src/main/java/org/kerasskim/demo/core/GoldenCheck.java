package org.kerasskim.demo.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Checks a model on the device side against its golden file: the same tokens and ids for every
 * fixture text, and at every threshold the same read mask and read count and logits within a
 * tolerance. The desktop JVM test of the JNI shim and the app's own self-check both use it.
 */
public final class GoldenCheck {
    private GoldenCheck() {
    }

    /** Tokens and ids only (no native code): every mismatch as one line; empty when all agree. */
    public static List<String> checkTokens(BenchSubject model, GoldenFile golden) {
        List<String> problems = new ArrayList<>();
        for (GoldenFile.Case c : golden.cases) {
            checkEncoding(model, c, problems);
        }
        return problems;
    }

    /** Tokens, ids and every run; every mismatch as one line; empty when all agree. */
    public static List<String> check(BenchSubject model, GoldenFile golden, double logitTolerance) {
        List<String> problems = new ArrayList<>();
        for (GoldenFile.Case c : golden.cases) {
            int[] ids = checkEncoding(model, c, problems);
            for (GoldenFile.Run run : c.runs) {
                String where = golden.model + " / " + c.name + " @ threshold " + run.threshold + ": ";
                RunResult out;
                try {
                    out = model.run(ids, (float) run.threshold);
                } catch (ModelException | RuntimeException err) {
                    problems.add(where + "run failed: " + err.getMessage());
                    continue;
                }
                if (!Arrays.equals(out.tokenMask, run.readMask)) {
                    problems.add(where + "read mask " + Arrays.toString(out.tokenMask) + ", expected "
                            + Arrays.toString(run.readMask));
                }
                if (out.readCount != run.readCount) {
                    problems.add(where + "read count " + out.readCount + ", expected " + run.readCount);
                }
                if (out.logits.length != run.logits.length) {
                    problems.add(where + out.logits.length + " logits, expected " + run.logits.length);
                    continue;
                }
                for (int i = 0; i < out.logits.length; i++) {
                    double diff = Math.abs(out.logits[i] - run.logits[i]);
                    if (!(diff <= logitTolerance)) {
                        problems.add(where + "logit " + i + " is " + out.logits[i] + ", expected " + run.logits[i]
                                + " (difference " + diff + " > " + logitTolerance + ")");
                    }
                }
            }
        }
        return problems;
    }

    private static int[] checkEncoding(BenchSubject model, GoldenFile.Case c, List<String> problems) {
        Encoded encoded = model.encode(c.text);
        if (!encoded.tokens.equals(c.tokens)) {
            problems.add(c.name + ": tokens " + encoded.tokens + ", expected " + c.tokens);
        }
        if (!Arrays.equals(encoded.ids, c.tokenIds)) {
            problems.add(c.name + ": ids " + Arrays.toString(encoded.ids) + ", expected " + Arrays.toString(c.tokenIds));
        }
        // run the golden ids, so that one tokenizer mismatch is not reported again for every run
        return c.tokenIds;
    }
}
