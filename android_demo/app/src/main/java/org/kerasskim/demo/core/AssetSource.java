package org.kerasskim.demo.core;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Where the app's files come from: the APK's assets on Android ({@code AndroidAssets}), a folder on
 * the desktop JVM ({@link DirectoryAssets}). Paths are relative, separated by '/'.
 */
public interface AssetSource {
    /** The bytes of a file decoded as UTF-8; {@link FileNotFoundException} when it is missing. */
    String readText(String path) throws IOException;

    /** A model file as a direct (memory-mapped where possible) buffer for LiteRT;
     * {@link FileNotFoundException} when it is missing. */
    ByteBuffer readModel(String path) throws IOException;

    /** Where the files are, for messages (e.g. "APK assets" or a folder path). */
    String describe();
}
