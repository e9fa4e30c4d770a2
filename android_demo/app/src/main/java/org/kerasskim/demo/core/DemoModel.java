package org.kerasskim.demo.core;

import java.util.ArrayList;
import java.util.List;

/**
 * A bundled model ready to run: LiteRT through the JNI shim ({@link NativeModel}), with its
 * tokenizer and metadata. Mirrors {@code keras_skim.runtime.SkimRunner}. Not thread-safe: the
 * app calls it from one worker thread.
 */
public final class DemoModel implements BenchSubject, AutoCloseable {
    public final CatalogEntry entry;
    public final ModelMetadata metadata;
    public final Tokenizer tokenizer;
    private final NativeModel model;

    private DemoModel(ModelFiles files, NativeModel model) {
        this.entry = files.entry.labelledBy(files.metadata);
        this.metadata = files.metadata;
        this.tokenizer = files.tokenizer;
        this.model = model;
    }

    /**
     * Loads the model into LiteRT. The JNI library must have been loaded
     * ({@link NativeLibrary#loadBundled()}); every failure comes back as a {@link Problem}.
     */
    public static Outcome<DemoModel> open(ModelFiles files, int numThreads) {
        String where = files.entry.modelPath;
        try {
            return Outcome.ok(new DemoModel(files,
                    NativeModel.load(files.model, numThreads, files.metadata.padsTokens())));
        } catch (ModelException err) {
            String needs = files.metadata.customOps.isEmpty() ? ""
                    : " (it needs the custom op " + String.join(", ", files.metadata.customOps)
                    + ", which libkeras_skim_jni.so registers)";
            return Outcome.failed(Problem.Kind.MODEL_LOAD,
                    where + ": LiteRT cannot load the model: " + err.getMessage() + needs);
        } catch (LinkageError err) {  // UnsatisfiedLinkError, or a failed static initializer
            return Outcome.failed(Problem.Kind.NATIVE_LIBRARY,
                    "the native library is not loaded (" + err + "), so " + where + " cannot run");
        } catch (RuntimeException err) {
            return Outcome.failed(Problem.Kind.MODEL_LOAD, where + ": " + err);
        }
    }

    @Override
    public String path() {
        return entry.modelPath;
    }

    @Override
    public ModelMetadata metadata() {
        return metadata;
    }

    /** {@code SkimRunner.encode}: tokens and ids cut at the model's max_length, padding ids dropped. */
    @Override
    public Encoded encode(String text) {
        return Encoded.of(text, tokenizer, metadata.maxLength);
    }

    /**
     * {@code SkimRunner.run_ids}: an empty text runs as one unknown token, or in a jump model as
     * one padding token (no word, as the empty text is for the Keras model).
     */
    @Override
    public RunResult run(int[] tokenIds, float threshold) throws ModelException {
        int[] ids = tokenIds.length == 0
                ? new int[] {metadata.jumps() ? Tokenizer.PAD_ID : Tokenizer.UNK_ID} : tokenIds;
        return model.run(ids, threshold);
    }

    /** {@code SkimRunner.classify}: the prediction and what happened to each token. */
    public Outcome<Prediction> classify(String text, float threshold) {
        Encoded encoded = encode(text);
        RunResult result;
        try {
            result = run(encoded.ids, threshold);
        } catch (ModelException | RuntimeException err) {
            return Outcome.failed(Problem.Kind.RUN, entry.modelPath + ": the run failed: " + err.getMessage());
        }
        List<TokenState> states = new ArrayList<>(encoded.tokens.size());
        for (int i = 0; i < encoded.tokens.size(); i++) {
            int code = i < result.tokenMask.length ? result.tokenMask[i] : 1;
            states.add(metadata.state(code));
        }
        return Outcome.ok(new Prediction(encoded.tokens, encoded.ids, states, result.logits,
                metadata.outputActivation, entry, threshold, result.nanos));
    }

    @Override
    public void close() {
        model.close();
    }
}
