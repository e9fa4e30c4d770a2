package org.kerasskim.demo.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** One of the sample reviews the text box offers ({@code sample_reviews.json}, committed in the app). */
public final class SampleReview {
    public static final String FORMAT = "keras_skim.sample_reviews";

    public final String title;
    public final String text;

    public SampleReview(String title, String text) {
        this.title = title;
        this.text = text;
    }

    /** {@code {"format": "keras_skim.sample_reviews", "reviews": [{"title": ..., "text": ...}, ...]}} */
    public static List<SampleReview> listFromJson(String json) throws JsonException {
        Map<String, Object> root = Json.object(Json.parse(json), "the sample reviews");
        if (!FORMAT.equals(root.get("format"))) {
            throw new JsonException("not a " + FORMAT + " file (format=" + Json.write(root.get("format")) + ")");
        }
        List<SampleReview> out = new ArrayList<>();
        for (Object item : Json.array(root.get("reviews"), "\"reviews\"")) {
            Map<String, Object> m = Json.object(item, "each review");
            out.add(new SampleReview(Json.string(m, "title"), Json.string(m, "text")));
        }
        return out;
    }

    @Override
    public String toString() {
        return title;
    }
}
