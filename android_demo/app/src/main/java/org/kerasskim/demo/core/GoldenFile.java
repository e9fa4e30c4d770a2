package org.kerasskim.demo.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * A golden file of {@code export/build_release.py assets}: for one bundled model, fixture texts
 * with the tokens, ids, logits, read masks and read counts that the Python LiteRT runner
 * ({@code keras_skim.runtime.SkimRunner}) gave, at several thresholds.
 *
 * <pre>
 * {"format": "keras_skim.golden", "version": 1, "model": "skim_lstm_custom",
 *  "thresholds": [0.0, 0.5, 1.5],
 *  "cases": [{"name": "kelvin_sign", "text": "...", "tokens": [...], "token_ids": [...],
 *             "runs": [{"threshold": 0.0, "logits": [...], "read_mask": [...], "read_count": 3}, ...]}]}
 * </pre>
 * {@code read_mask} is the model's output as is: one entry per id, or one for an empty text,
 * which runs as one unknown token.
 */
public final class GoldenFile {
    public static final String FORMAT = "keras_skim.golden";

    /** One fixture text. */
    public static final class Case {
        public final String name;
        public final String text;
        public final List<String> tokens;
        public final int[] tokenIds;
        public final List<Run> runs;

        Case(String name, String text, List<String> tokens, int[] tokenIds, List<Run> runs) {
            this.name = name;
            this.text = text;
            this.tokens = Collections.unmodifiableList(tokens);
            this.tokenIds = tokenIds;
            this.runs = Collections.unmodifiableList(runs);
        }
    }

    /** One run of a case. */
    public static final class Run {
        public final double threshold;
        public final double[] logits;
        public final int[] readMask;
        public final int readCount;

        Run(double threshold, double[] logits, int[] readMask, int readCount) {
            this.threshold = threshold;
            this.logits = logits;
            this.readMask = readMask;
            this.readCount = readCount;
        }
    }

    /** The catalog id of the model. */
    public final String model;
    public final List<Case> cases;

    private GoldenFile(String model, List<Case> cases) {
        this.model = model;
        this.cases = Collections.unmodifiableList(cases);
    }

    public static GoldenFile fromJson(String json) throws JsonException {
        Map<String, Object> root = Json.object(Json.parse(json), "the golden file");
        if (!FORMAT.equals(root.get("format"))) {
            throw new JsonException("not a " + FORMAT + " file (format=" + Json.write(root.get("format")) + ")");
        }
        List<Case> cases = new ArrayList<>();
        for (Object item : Json.array(root.get("cases"), "\"cases\"")) {
            Map<String, Object> c = Json.object(item, "each case");
            List<Run> runs = new ArrayList<>();
            for (Object r : Json.array(c.get("runs"), "\"runs\"")) {
                Map<String, Object> run = Json.object(r, "each run");
                runs.add(new Run(Json.optNumber(run, "threshold"), Json.numbers(run.get("logits"), "\"logits\""),
                        Json.ints(run.get("read_mask"), "\"read_mask\""), Json.integer(run, "read_count")));
            }
            cases.add(new Case(Json.string(c, "name"), Json.string(c, "text"),
                    Json.strings(c.get("tokens"), "\"tokens\""), Json.ints(c.get("token_ids"), "\"token_ids\""), runs));
        }
        return new GoldenFile(Json.string(root, "model"), cases);
    }
}
