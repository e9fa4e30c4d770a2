package org.kerasskim.demo.jnitest;

import java.io.BufferedReader;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;

import org.kerasskim.demo.core.ModelException;
import org.kerasskim.demo.core.NativeLibrary;
import org.kerasskim.demo.core.NativeModel;
import org.kerasskim.demo.core.RunResult;

/**
 * Desktop check of the JNI shim (tests/android/test_jni_shim.py): loads the shim with
 * System.load, points it at a libLiteRt.so, and answers one request per stdin line with one JSON
 * line on stdout.
 *
 * <pre>
 *   java -cp CLASSES org.kerasskim.demo.jnitest.JniCheck SHIM.so LIBLITERT.so
 *   load NAME mapped|heap MODEL.tflite   -> {"loaded": NAME} or {"error": MESSAGE}
 *   run NAME THRESHOLD ID ID ...         -> {"logits": [...], "mask": [...], "count": N, "nanos": N}
 *   close NAME                           -> {"closed": NAME}
 * </pre>
 */
public final class JniCheck {
    private JniCheck() {
    }

    public static void main(String[] args) throws IOException {
        NativeLibrary.loadFromPath(args[0]);
        NativeLibrary.setLiteRtPath(args[1]);
        Map<String, NativeModel> models = new HashMap<>();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] w = line.trim().split(" ");
            StringBuilder out = new StringBuilder();
            try {
                if (w[0].equals("load")) {
                    models.put(w[1], NativeModel.load(read(w[3], w[2].equals("mapped")), 1));
                    out.append("{\"loaded\": \"").append(w[1]).append("\"}");
                } else if (w[0].equals("run")) {
                    int[] ids = new int[w.length - 3];
                    for (int i = 0; i < ids.length; i++) {
                        ids[i] = Integer.parseInt(w[3 + i]);
                    }
                    RunResult r = models.get(w[1]).run(ids, Float.parseFloat(w[2]));
                    out.append("{\"logits\": [");
                    for (int i = 0; i < r.logits.length; i++) {
                        out.append(i > 0 ? ", " : "").append(Float.toString(r.logits[i]));
                    }
                    out.append("], \"mask\": [");
                    for (int i = 0; i < r.tokenMask.length; i++) {
                        out.append(i > 0 ? ", " : "").append(r.tokenMask[i]);
                    }
                    out.append("], \"count\": ").append(r.readCount).append(", \"nanos\": ").append(r.nanos).append("}");
                } else if (w[0].equals("close")) {
                    models.remove(w[1]).close();
                    out.append("{\"closed\": \"").append(w[1]).append("\"}");
                } else {
                    out.append("{\"error\": \"unknown request\"}");
                }
            } catch (ModelException e) {
                out.setLength(0);
                out.append("{\"error\": \"").append(e.getMessage().replace("\\", "\\\\").replace("\"", "\\\"")).append("\"}");
            }
            System.out.println(out);
            System.out.flush();
        }
    }

    /** The file as a memory-mapped (direct) buffer, or as a heap buffer. */
    private static ByteBuffer read(String path, boolean mapped) throws IOException {
        if (!mapped) {
            return ByteBuffer.wrap(Files.readAllBytes(new File(path).toPath()));
        }
        try (FileInputStream stream = new FileInputStream(path); FileChannel channel = stream.getChannel()) {
            return channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
        }
    }
}
