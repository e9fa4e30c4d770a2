package org.kerasskim.demo.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * {@code bench_texts.json}: the texts the Benchmark button times, the same sample that
 * {@code keras-skim demo} benchmarks on the desktop, with their labels when known.
 *
 * <pre>
 * {"format": "keras_skim.bench_texts", "version": 1,
 *  "description": "rotten_tomatoes test split, seeded class-balanced sample of 100",
 *  "texts": ["...", ...], "labels": [0, 1, ...] or null}
 * </pre>
 */
public final class BenchTexts {
    public static final String FORMAT = "keras_skim.bench_texts";

    public final String description;
    public final List<String> texts;
    /** Class ids, one per text, or null. */
    public final List<Integer> labels;

    public BenchTexts(String description, List<String> texts, List<Integer> labels) {
        this.description = description;
        this.texts = Collections.unmodifiableList(new ArrayList<>(texts));
        this.labels = labels == null ? null : Collections.unmodifiableList(new ArrayList<>(labels));
    }

    public static BenchTexts fromJson(String json) throws JsonException {
        Map<String, Object> root = Json.object(Json.parse(json), "the benchmark texts");
        if (!FORMAT.equals(root.get("format"))) {
            throw new JsonException("not a " + FORMAT + " file (format=" + Json.write(root.get("format")) + ")");
        }
        List<String> texts = Json.strings(root.get("texts"), "\"texts\"");
        if (texts.isEmpty()) {
            throw new JsonException("\"texts\" is empty");
        }
        List<Integer> labels = null;
        if (root.get("labels") != null) {
            int[] ids = Json.ints(root.get("labels"), "\"labels\"");
            if (ids.length != texts.size()) {
                throw new JsonException("\"labels\" has " + ids.length + " entries for " + texts.size() + " texts");
            }
            labels = new ArrayList<>();
            for (int id : ids) {
                labels.add(id);
            }
        }
        return new BenchTexts(Json.string(root, "description"), texts, labels);
    }
}
