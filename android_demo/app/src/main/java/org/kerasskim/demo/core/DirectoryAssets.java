package org.kerasskim.demo.core;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;

/** An {@link AssetSource} over a folder: the desktop JVM tests' stand-in for the APK's assets. */
public final class DirectoryAssets implements AssetSource {
    private final File root;

    public DirectoryAssets(File root) {
        this.root = root;
    }

    private File file(String path) throws FileNotFoundException {
        File file = new File(root, path.replace('/', File.separatorChar));
        if (!file.isFile()) {
            throw new FileNotFoundException(path);
        }
        return file;
    }

    @Override
    public String readText(String path) throws IOException {
        File file = file(path);
        byte[] bytes = new byte[(int) file.length()];
        try (FileInputStream in = new FileInputStream(file)) {
            int done = 0;
            while (done < bytes.length) {
                int n = in.read(bytes, done, bytes.length - done);
                if (n < 0) {
                    throw new IOException(path + ": file shrank while read");
                }
                done += n;
            }
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    public ByteBuffer readModel(String path) throws IOException {
        try (RandomAccessFile in = new RandomAccessFile(file(path), "r");
             FileChannel channel = in.getChannel()) {
            return channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
        }
    }

    @Override
    public String describe() {
        return root.getPath();
    }
}
