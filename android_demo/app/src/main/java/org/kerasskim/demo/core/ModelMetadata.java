package org.kerasskim.demo.core;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code metadata.json} that {@code keras_skim.export.exporter.export_model} writes next to
 * {@code model.tflite}: what the app needs of it, checked once when read.
 */
public final class ModelMetadata {
    public static final String FORMAT = "keras_skim.export";

    public final String modelKind;
    public final int units;
    /** d' of a skim model; 0 or null for a model without one, as the exporter wrote it. */
    public final Integer smallUnits;
    public final int embeddingDim;
    public final int vocabularySize;
    public final int numClasses;
    /** "sigmoid", "softmax" or null: applied to the pre-activation {@code logits} output. */
    public final String outputActivation;
    /** Tokens past this many are dropped before a run (null: no limit). */
    public final Integer maxLength;
    /** The threshold the model was exported with (null for a model without a skim cell). */
    public final Double defaultThreshold;
    /** "builtin" or "custom" (needs the custom ops in {@link #customOps}). */
    public final String backend;
    public final List<String> customOps;
    public final Double baselineFlopsPerToken;
    public final Double readFlopsPerToken;
    /** Null for a model that never skims. */
    public final Double skimFlopsPerToken;
    private final Map<Integer, TokenState> maskCodes;

    private ModelMetadata(Map<String, Object> m) throws JsonException {
        Object format = m.get("format");
        if (!FORMAT.equals(format)) {
            throw new JsonException("not a " + FORMAT + " metadata file (format=" + Json.write(format) + ")");
        }
        modelKind = Json.string(m, "model_kind");
        units = Json.integer(m, "units");
        smallUnits = Json.optInteger(m, "small_units");
        embeddingDim = Json.integer(m, "embedding_dim");
        vocabularySize = Json.integer(m, "vocabulary_size");
        numClasses = Json.integer(m, "num_classes");
        if (numClasses < 1 || vocabularySize < 2 || units < 1) {
            throw new JsonException("\"num_classes\", \"vocabulary_size\" and \"units\" must be positive");
        }
        outputActivation = Json.optString(m, "output_activation");
        maxLength = Json.optInteger(m, "max_length");
        defaultThreshold = Json.optNumber(m, "default_threshold");
        String declaredBackend = Json.optString(m, "backend");
        backend = declaredBackend == null ? "builtin" : declaredBackend;
        customOps = m.get("custom_ops") == null
                ? Collections.<String>emptyList()
                : Collections.unmodifiableList(Json.strings(m.get("custom_ops"), "\"custom_ops\""));
        Map<String, Object> flops = m.get("flops") == null
                ? new HashMap<String, Object>() : Json.object(m.get("flops"), "\"flops\"");
        baselineFlopsPerToken = Json.optNumber(flops, "baseline_flops_per_token");
        readFlopsPerToken = Json.optNumber(flops, "read_flops_per_token");
        skimFlopsPerToken = Json.optNumber(flops, "skim_flops_per_token");
        maskCodes = readMaskCodes(m);
    }

    /** Reads and checks the text of a {@code metadata.json}. */
    public static ModelMetadata fromJson(String json) throws JsonException {
        return new ModelMetadata(Json.object(Json.parse(json), "the metadata file"));
    }

    /** Whether the threshold changes anything: the runtime's rule ({@code SkimRunner.skims}). */
    public boolean skims() {
        return modelKind.startsWith("skim");
    }

    /** The threshold to use when the user has not chosen one. */
    public float thresholdOrDefault() {
        return defaultThreshold == null ? 0f : defaultThreshold.floatValue();
    }

    /**
     * The state a {@code read_mask} code stands for: from {@code outputs.read_mask.codes} in the
     * metadata when present ({@code {"0": "skimmed", "1": "read", "2": "jumped"}}), else the
     * exporter's current meaning (1 read, 0 skimmed) and 2 for jumped.
     */
    public TokenState state(int code) {
        TokenState state = maskCodes.get(code);
        return state != null ? state : (code == 0 ? TokenState.SKIMMED : code == 2 ? TokenState.JUMPED : TokenState.READ);
    }

    /** Flop-R at a skim rate: {@code keras_skim.runtime.bench.flop_r}; null without FLOP counts. */
    public Double flopR(double skimRate) {
        if (baselineFlopsPerToken == null || readFlopsPerToken == null
                || baselineFlopsPerToken == 0 || readFlopsPerToken == 0) {
            return null;
        }
        if (skimFlopsPerToken == null) {
            return baselineFlopsPerToken / readFlopsPerToken;
        }
        return baselineFlopsPerToken / ((1.0 - skimRate) * readFlopsPerToken + skimRate * skimFlopsPerToken);
    }

    private static Map<Integer, TokenState> readMaskCodes(Map<String, Object> m) throws JsonException {
        Map<Integer, TokenState> codes = new HashMap<>();
        Object outputs = m.get("outputs");
        if (!(outputs instanceof Map)) {
            return codes;
        }
        Object readMask = Json.object(outputs, "\"outputs\"").get("read_mask");
        if (!(readMask instanceof Map)) {
            return codes;
        }
        Object declared = Json.object(readMask, "\"outputs.read_mask\"").get("codes");
        if (declared == null) {
            return codes;
        }
        for (Map.Entry<String, Object> entry : Json.object(declared, "\"outputs.read_mask.codes\"").entrySet()) {
            TokenState state = entry.getValue() instanceof String ? TokenState.fromName((String) entry.getValue()) : null;
            int code;
            try {
                code = Integer.parseInt(entry.getKey());
            } catch (NumberFormatException err) {
                state = null;
                code = 0;
            }
            if (state == null) {
                throw new JsonException("\"outputs.read_mask.codes\" must map integer codes to read, skimmed or jumped");
            }
            codes.put(code, state);
        }
        return codes;
    }
}
