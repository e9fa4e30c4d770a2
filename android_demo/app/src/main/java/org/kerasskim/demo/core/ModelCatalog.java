package org.kerasskim.demo.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code catalog.json}, written by {@code export/build_release.py assets}: which models the APK
 * carries, which one is the LSTM baseline of the benchmark, and the benchmark texts.
 *
 * <pre>
 * {"format": "keras_skim.app_catalog", "version": 1,
 *  "models": [{"id": "skim_lstm_custom", "title": "Skim-LSTM (custom op)", "model_kind": "skim_lstm",
 *              "backend": "custom", "model": "skim_lstm_custom/model.tflite",
 *              "tokenizer": "skim_lstm_custom/tokenizer.json", "metadata": "skim_lstm_custom/metadata.json",
 *              "labels": ["negative", "positive"]}, ...],
 *  "default_model": "skim_lstm_custom", "baseline": "lstm_builtin", "bench_texts": "bench_texts.json"}
 * </pre>
 */
public final class ModelCatalog {
    public static final String FORMAT = "keras_skim.app_catalog";
    public static final int VERSION = 1;

    public final List<CatalogEntry> models;
    /** The model shown first. */
    public final String defaultModelId;
    /** The model every benchmark compares against (the LSTM); null when the APK has none. */
    public final String baselineId;
    /** The benchmark texts file, relative to the assets root; null when the APK has none. */
    public final String benchTextsPath;

    private ModelCatalog(List<CatalogEntry> models, String defaultModelId, String baselineId, String benchTextsPath) {
        this.models = Collections.unmodifiableList(models);
        this.defaultModelId = defaultModelId;
        this.baselineId = baselineId;
        this.benchTextsPath = benchTextsPath;
    }

    /**
     * Reads a catalog whose asset paths are relative to {@code folder} ("" for the assets root);
     * the returned entries carry paths relative to the assets root.
     */
    public static ModelCatalog fromJson(String json, String folder) throws JsonException {
        Map<String, Object> root = Json.object(Json.parse(json), "the catalog");
        if (!FORMAT.equals(root.get("format"))) {
            throw new JsonException("not a " + FORMAT + " file (format=" + Json.write(root.get("format")) + ")");
        }
        Object version = root.get("version");
        if (!(version instanceof Long) || (Long) version != VERSION) {
            throw new JsonException("unsupported catalog version " + Json.write(version) + ", expected " + VERSION);
        }
        String prefix = folder == null || folder.isEmpty() ? "" : folder + "/";
        List<CatalogEntry> models = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (Object item : Json.array(root.get("models"), "\"models\"")) {
            Map<String, Object> m = Json.object(item, "each of \"models\"");
            String id = Json.string(m, "id");
            if (!ids.add(id)) {
                throw new JsonException("model id \"" + id + "\" appears twice");
            }
            List<String> labels = m.get("labels") == null
                    ? new ArrayList<String>() : Json.strings(m.get("labels"), "\"labels\" of " + id);
            models.add(new CatalogEntry(id, Json.string(m, "title"), Json.string(m, "model_kind"),
                    Json.string(m, "backend"), prefix + relative(m, "model"), prefix + relative(m, "tokenizer"),
                    prefix + relative(m, "metadata"), labels));
        }
        if (models.isEmpty()) {
            throw new JsonException("\"models\" is empty");
        }
        String defaultId = Json.optString(root, "default_model");
        if (defaultId == null) {
            defaultId = models.get(0).id;
        }
        String baselineId = Json.optString(root, "baseline");
        for (String id : new String[] {defaultId, baselineId}) {
            if (id != null && !ids.contains(id)) {
                throw new JsonException("\"" + id + "\" is not one of the catalog's models");
            }
        }
        String bench = root.get("bench_texts") == null ? null : prefix + relative(root, "bench_texts");
        return new ModelCatalog(models, defaultId, baselineId, bench);
    }

    /** The entry with this id, or null. */
    public CatalogEntry entry(String id) {
        for (CatalogEntry entry : models) {
            if (entry.id.equals(id)) {
                return entry;
            }
        }
        return null;
    }

    /** The benchmark's baseline, or null. */
    public CatalogEntry baseline() {
        return baselineId == null ? null : entry(baselineId);
    }

    private static String relative(Map<String, Object> m, String key) throws JsonException {
        String path = Json.string(m, key);
        if (path.isEmpty() || path.startsWith("/") || path.contains("..") || path.contains("\\")) {
            throw new JsonException("\"" + key + "\" must be a relative path inside the assets, got \"" + path + "\"");
        }
        return path;
    }
}
