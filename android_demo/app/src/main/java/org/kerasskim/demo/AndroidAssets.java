package org.kerasskim.demo;

import android.content.res.AssetFileDescriptor;
import android.content.res.AssetManager;

import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;

import org.kerasskim.demo.core.AssetSource;

/** The APK's assets as the core's {@link AssetSource}. */
final class AndroidAssets implements AssetSource {
    private final AssetManager assets;

    AndroidAssets(AssetManager assets) {
        this.assets = assets;
    }

    @Override
    public String readText(String path) throws IOException {
        try (InputStream in = assets.open(path)) {  // FileNotFoundException when missing
            return new String(readAll(in), StandardCharsets.UTF_8);
        }
    }

    /** Memory-maps the model (stored uncompressed: noCompress "tflite" in build.gradle.kts). */
    @Override
    public ByteBuffer readModel(String path) throws IOException {
        try (AssetFileDescriptor fd = assets.openFd(path);
             FileInputStream in = fd.createInputStream();
             FileChannel channel = in.getChannel()) {
            return channel.map(FileChannel.MapMode.READ_ONLY, fd.getStartOffset(), fd.getDeclaredLength());
        } catch (FileNotFoundException compressedOrMissing) {
            // openFd also says FileNotFoundException for a compressed asset: copy it instead,
            // and let open() say whether it is really missing
            try (InputStream in = assets.open(path)) {
                byte[] bytes = readAll(in);
                ByteBuffer buffer = ByteBuffer.allocateDirect(bytes.length).order(ByteOrder.nativeOrder());
                buffer.put(bytes);
                // through Buffer: ByteBuffer.flip() returns ByteBuffer only on newer APIs
                ((Buffer) buffer).flip();
                return buffer;
            }
        }
    }

    @Override
    public String describe() {
        return "the APK's assets";
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] chunk = new byte[64 * 1024];
        int n;
        while ((n = in.read(chunk)) > 0) {
            out.write(chunk, 0, n);
        }
        return out.toByteArray();
    }
}
