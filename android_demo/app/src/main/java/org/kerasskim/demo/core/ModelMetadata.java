package org.kerasskim.demo.core;

import java.util.ArrayList;
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
    /** The model kind of a Structural-Jump-LSTM export: its mask tells read, skipped and jumped words. */
    public static final String JUMP_MODEL_KIND = "structural_jump_lstm";
    /** The {@code input_kind} of an export that takes token ids: the only kind the app runs. */
    public static final String TOKEN_IDS_INPUT = "token_ids";
    /**
     * Why an export of another input kind (a model on float sequences, {@code input_kind
     * "sequence"}) is refused; {@code export/release_assets.py} refuses it in the same words.
     */
    public static final String TEXT_INPUTS_ONLY = "the app reads text, so it runs only token-id exports "
            + "(input_kind \"token_ids\": a model whose first layer is an Embedding)";
    /** The agents' hidden size of the paper (and the exporter's default) when the metadata has none. */
    public static final int DEFAULT_AGENT_UNITS = 25;

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
    /** The hidden size of a jump model's agents ({@code agent_units}); null when not written. */
    public final Integer agentUnits;
    /**
     * The training data's class names ({@code class_names}, index = class id); empty for an export
     * written before class names travelled (then {@link #className} says "class N").
     */
    public final List<String> classNames;
    /**
     * Whether the signature has a {@code threshold} input: since metadata version 3 only a model
     * the threshold applies to (a skim model) has one; the JNI shim passes it only then.
     */
    public final boolean takesThreshold;
    /**
     * The id the model's embedding masks ({@code padding_id}: 0, as {@code
     * keras_skim.contracts.PADDING_ID}); null when the model has none or the metadata predates it.
     */
    public final Integer paddingId;
    private final Map<Integer, TokenState> maskCodes;

    private ModelMetadata(Map<String, Object> m) throws JsonException {
        Object format = m.get("format");
        if (!FORMAT.equals(format)) {
            throw new JsonException("not a " + FORMAT + " metadata file (format=" + Json.write(format) + ")");
        }
        // Absent in exports written before sequence inputs, which all took token ids.
        String inputKind = Json.optString(m, "input_kind");
        if (inputKind != null && !TOKEN_IDS_INPUT.equals(inputKind)) {
            throw new JsonException("input_kind " + Json.write(inputKind) + ": " + TEXT_INPUTS_ONLY);
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
        agentUnits = Json.optInteger(m, "agent_units");
        paddingId = Json.optInteger(m, "padding_id");
        if (embeddingDim < 1 || (agentUnits != null && agentUnits < 1)) {
            throw new JsonException("\"embedding_dim\" and \"agent_units\" must be positive");
        }
        maskCodes = readMaskCodes(m);
        classNames = m.get("class_names") == null
                ? Collections.<String>emptyList()
                : Collections.unmodifiableList(new ArrayList<>(Json.strings(m.get("class_names"), "\"class_names\"")));
        if (!classNames.isEmpty() && classNames.size() != Math.max(numClasses, 2)) {
            throw new JsonException("\"class_names\" must name max(num_classes, 2) classes");
        }
        Object inputs = m.get("inputs");
        Object version = m.get("version");
        boolean current = version instanceof Number && ((Number) version).intValue() >= 3;
        takesThreshold = inputs instanceof Map && current
                ? ((Map<?, ?>) inputs).containsKey("threshold") : true;
    }

    /** The name of class {@code index}: the training data's, else "class N". */
    public String className(int index) {
        return index >= 0 && index < classNames.size() ? classNames.get(index) : "class " + index;
    }

    /** Reads and checks the text of a {@code metadata.json}. */
    public static ModelMetadata fromJson(String json) throws JsonException {
        return new ModelMetadata(Json.object(Json.parse(json), "the metadata file"));
    }

    /** Whether the threshold changes anything: the runtime's rule ({@code SkimRunner.skims}). */
    public boolean skims() {
        return modelKind.startsWith("skim");
    }

    /**
     * Whether this is a jump model (Structural-Jump-LSTM): its agents decide what is read,
     * skipped and jumped, no threshold applies, and punctuation is not a word.
     */
    public boolean jumps() {
        return JUMP_MODEL_KIND.equals(modelKind);
    }

    /**
     * Whether texts run at the padded input lengths of {@link TokenPadding}: the rule of {@code
     * keras_skim.runtime.token_padding.padding_for}, an export with keras-skim's custom ops (which
     * skip a padding step in a comparison) whose padding id is {@link Tokenizer#PAD_ID}.
     */
    public boolean padsTokens() {
        return !customOps.isEmpty() && paddingId != null && paddingId == Tokenizer.PAD_ID;
    }

    /** The threshold to use when the user has not chosen one. */
    public float thresholdOrDefault() {
        return defaultThreshold == null ? 0f : defaultThreshold.floatValue();
    }

    /**
     * The state a {@code read_mask} code stands for: from {@code outputs.read_mask.codes} in the
     * metadata when present ({@code {"0": "skimmed", "1": "read", "2": "jumped", "3": "not a word"}}),
     * else {@code keras_skim.contracts}' codes: 1 read, 0 skimmed (or skipped), 2 jumped, 3 not a
     * word (punctuation).
     */
    public TokenState state(int code) {
        TokenState state = maskCodes.get(code);
        if (state != null) {
            return state;
        }
        switch (code) {
            case 0: return TokenState.SKIMMED;
            case 2: return TokenState.JUMPED;
            case 3: return TokenState.NOT_A_WORD;
            default: return TokenState.READ;
        }
    }

    /**
     * A jump model's Flop-r over texts with these totals ({@code
     * keras_skim.models.structural_jump.structural_jump_flops.structural_jump_flop_report}, corpus level): the
     * FLOPs of an LSTM of the same size reading every word over those of the skip agent at every
     * visited word plus the LSTM step and the jump agent at every read word. Null when nothing was
     * visited.
     */
    public Double jumpFlopR(long words, long visited, long read) {
        if (visited <= 0) {
            return null;
        }
        long m = units;
        long d = embeddingDim;
        long a = agentUnits == null ? DEFAULT_AGENT_UNITS : agentUnits;
        long previousActions = 6;  // one-hots of the previous skip (2) and jump (4) actions
        double skipAgent = 2 * a * (m + d + previousActions) + 2 * a + 2 * 2 * a + 2 + 1;
        double readStep = lstmStepFlops(m, d + previousActions) + 2 * a * m + 2 * a + 2 * 4 * a + 4 + 3;
        return words * lstmStepFlops(m, d) / (visited * skipAgent + read * readStep);
    }

    /** {@code keras_skim.analysis.flops.rnn_step_flops("lstm", m, inputDim)}. */
    private static double lstmStepFlops(long m, long inputDim) {
        return 2.0 * 4 * m * (inputDim + m) + 13.0 * m;
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
                throw new JsonException("\"outputs.read_mask.codes\" must map integer codes to read, skimmed, jumped "
                        + "or not a word");
            }
            codes.put(code, state);
        }
        return codes;
    }
}
