package org.kerasskim.demo.core;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The app's files: the catalog the release pipeline writes under {@link #ASSET_ROOT}, each
 * model's three files, the benchmark texts and the sample reviews. Every failure is a
 * {@link Problem}, never an exception.
 */
public final class ModelRepository {
    /** The assets folder that {@code export/build_release.py assets} fills. */
    public static final String ASSET_ROOT = "keras_skim";
    public static final String CATALOG_PATH = ASSET_ROOT + "/catalog.json";
    /** Committed with the app, outside the generated folder. */
    public static final String SAMPLE_REVIEWS_PATH = "sample_reviews.json";
    static final String HOW_TO_BUILD = "build the app's assets with `python export/build_release.py assets` "
            + "(android_demo/README.md)";

    private final AssetSource assets;

    public ModelRepository(AssetSource assets) {
        this.assets = assets;
    }

    public Outcome<ModelCatalog> catalog() {
        Outcome<String> text = read(CATALOG_PATH);
        if (!text.isOk()) {
            return text.cast();
        }
        try {
            return Outcome.ok(ModelCatalog.fromJson(text.value(), ASSET_ROOT));
        } catch (JsonException err) {
            return Outcome.failed(Problem.Kind.BAD_CATALOG, CATALOG_PATH + ": " + err.getMessage());
        }
    }

    public Outcome<List<SampleReview>> sampleReviews() {
        Outcome<String> text = read(SAMPLE_REVIEWS_PATH);
        if (!text.isOk()) {
            return text.cast();
        }
        try {
            return Outcome.ok(SampleReview.listFromJson(text.value()));
        } catch (JsonException err) {
            return Outcome.failed(Problem.Kind.BAD_CATALOG, SAMPLE_REVIEWS_PATH + ": " + err.getMessage());
        }
    }

    public Outcome<BenchTexts> benchTexts(ModelCatalog catalog) {
        if (catalog.benchTextsPath == null) {
            return Outcome.failed(Problem.Kind.BAD_CATALOG, CATALOG_PATH + " names no benchmark texts");
        }
        Outcome<String> text = read(catalog.benchTextsPath);
        if (!text.isOk()) {
            return text.cast();
        }
        try {
            return Outcome.ok(BenchTexts.fromJson(text.value()));
        } catch (JsonException err) {
            return Outcome.failed(Problem.Kind.BAD_CATALOG, catalog.benchTextsPath + ": " + err.getMessage());
        }
    }

    /** Reads and cross-checks an entry's metadata, tokenizer and model file. */
    public Outcome<ModelFiles> files(CatalogEntry entry) {
        Outcome<String> metaText = read(entry.metadataPath);
        if (!metaText.isOk()) {
            return metaText.cast();
        }
        ModelMetadata metadata;
        try {
            metadata = ModelMetadata.fromJson(metaText.value());
        } catch (JsonException err) {
            return Outcome.failed(Problem.Kind.BAD_METADATA, entry.metadataPath + ": " + err.getMessage());
        }
        if (!metadata.modelKind.equals(entry.modelKind) || !metadata.backend.equals(entry.backend)) {
            return Outcome.failed(Problem.Kind.BAD_METADATA, entry.metadataPath + ": a " + metadata.modelKind
                    + " model of the " + metadata.backend + " backend, but " + CATALOG_PATH + " says "
                    + entry.modelKind + " / " + entry.backend);
        }
        int classes = metadata.numClasses == 1 ? 2 : metadata.numClasses;
        if (!entry.labels.isEmpty() && entry.labels.size() != classes) {
            return Outcome.failed(Problem.Kind.BAD_CATALOG, CATALOG_PATH + ": " + entry.id + " has "
                    + entry.labels.size() + " labels for " + classes + " classes");
        }
        Outcome<String> tokText = read(entry.tokenizerPath);
        if (!tokText.isOk()) {
            return tokText.cast();
        }
        Tokenizer tokenizer;
        try {
            tokenizer = Tokenizer.fromJson(tokText.value());
        } catch (JsonException err) {
            return Outcome.failed(Problem.Kind.BAD_TOKENIZER, entry.tokenizerPath + ": " + err.getMessage());
        }
        if (tokenizer.vocabularySize() > metadata.vocabularySize) {
            return Outcome.failed(Problem.Kind.BAD_TOKENIZER, entry.tokenizerPath + ": "
                    + tokenizer.vocabularySize() + " tokens but the model's embedding has "
                    + metadata.vocabularySize + " rows");
        }
        ByteBuffer model;
        try {
            model = assets.readModel(entry.modelPath);
        } catch (FileNotFoundException err) {
            return Outcome.failed(missing(entry.modelPath));
        } catch (IOException err) {
            return Outcome.failed(Problem.Kind.MISSING_ASSET, entry.modelPath + ": cannot read (" + err.getMessage() + ")");
        }
        return Outcome.ok(new ModelFiles(entry, metadata, tokenizer, model));
    }

    /** {@link #files} then {@link DemoModel#open}. */
    public Outcome<DemoModel> open(CatalogEntry entry, int numThreads) {
        Outcome<ModelFiles> files = files(entry);
        return files.isOk() ? DemoModel.open(files.value(), numThreads) : files.<DemoModel>cast();
    }

    private Outcome<String> read(String path) {
        try {
            return Outcome.ok(assets.readText(path));
        } catch (FileNotFoundException err) {
            return Outcome.failed(missing(path));
        } catch (IOException err) {
            return Outcome.failed(Problem.Kind.MISSING_ASSET, path + ": cannot read (" + err.getMessage() + ")");
        }
    }

    private Problem missing(String path) {
        return new Problem(Problem.Kind.MISSING_ASSET, path + " is not in " + assets.describe() + ": " + HOW_TO_BUILD);
    }
}
