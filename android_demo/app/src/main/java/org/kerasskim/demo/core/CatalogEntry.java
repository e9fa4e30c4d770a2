package org.kerasskim.demo.core;

import java.util.Collections;
import java.util.List;

/** One bundled model of {@code catalog.json}; asset paths are relative to the assets root. */
public final class CatalogEntry {
    /** e.g. "skim_lstm_custom": the model kind and the export backend. */
    public final String id;
    /** What the model picker shows, e.g. "Skim-LSTM (custom op)". */
    public final String title;
    public final String modelKind;
    public final String backend;
    public final String modelPath;
    public final String tokenizerPath;
    public final String metadataPath;
    /** Class names, index = class id. */
    public final List<String> labels;

    public CatalogEntry(String id, String title, String modelKind, String backend, String modelPath,
                        String tokenizerPath, String metadataPath, List<String> labels) {
        this.id = id;
        this.title = title;
        this.modelKind = modelKind;
        this.backend = backend;
        this.modelPath = modelPath;
        this.tokenizerPath = tokenizerPath;
        this.metadataPath = metadataPath;
        this.labels = Collections.unmodifiableList(labels);
    }

    /** The name of class {@code index}: its label, else "class N". */
    public String label(int index) {
        return index >= 0 && index < labels.size() ? labels.get(index) : "class " + index;
    }

    /**
     * This entry, or when its catalog gave no labels, the same entry labelled with the class
     * names its metadata.json records (what {@code keras_skim.runtime} names its classes by).
     */
    public CatalogEntry labelledBy(ModelMetadata metadata) {
        if (!labels.isEmpty() || metadata.classNames.isEmpty()) {
            return this;
        }
        return new CatalogEntry(id, title, modelKind, backend, modelPath, tokenizerPath, metadataPath,
                metadata.classNames);
    }

    @Override
    public String toString() {
        return title;
    }
}
