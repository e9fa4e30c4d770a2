package org.kerasskim.demo.core;

import java.nio.ByteBuffer;

/** A catalog entry's three files, read and checked against each other; no native code yet. */
public final class ModelFiles {
    public final CatalogEntry entry;
    public final ModelMetadata metadata;
    public final Tokenizer tokenizer;
    /** The .tflite flatbuffer, a direct buffer. */
    public final ByteBuffer model;

    public ModelFiles(CatalogEntry entry, ModelMetadata metadata, Tokenizer tokenizer, ByteBuffer model) {
        this.entry = entry;
        this.metadata = metadata;
        this.tokenizer = tokenizer;
        this.model = model;
    }
}
