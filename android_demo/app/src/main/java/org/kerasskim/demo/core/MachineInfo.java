package org.kerasskim.demo.core;

import java.io.BufferedReader;
import java.io.FileReader;
import java.io.IOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The lines of a benchmark report that describe where it ran. On the phone the UI fills them
 * from {@code android.os.Build}; {@code keras-skim bench} prints the same fields for a desktop.
 */
public final class MachineInfo {
    /** e.g. "Android 14 (API 34)". */
    public final String platform;
    /** e.g. "Google Pixel 8, arm64-v8a". */
    public final String processor;
    public final int cpuCount;
    /** The runtime, e.g. "ART 2.1.0" (the desktop report says "Python 3.11.2"). */
    public final String runtime;
    /** Package versions in report order, e.g. litert 2.3.0. */
    public final Map<String, String> versions;
    /** How the report was made, e.g. "keras-skim demo app: Benchmark button". */
    public final String command;
    private final Double fixedPeakRssMb;

    public MachineInfo(String platform, String processor, int cpuCount, String runtime,
                       Map<String, String> versions, String command) {
        this(platform, processor, cpuCount, runtime, versions, command, null);
    }

    /** With a fixed peak RSS instead of reading /proc/self/status (tests). */
    public MachineInfo(String platform, String processor, int cpuCount, String runtime,
                       Map<String, String> versions, String command, Double fixedPeakRssMb) {
        this.platform = platform;
        this.processor = processor;
        this.cpuCount = cpuCount;
        this.runtime = runtime;
        this.versions = Collections.unmodifiableMap(new LinkedHashMap<>(versions));
        this.command = command;
        this.fixedPeakRssMb = fixedPeakRssMb;
    }

    /** The process's peak resident set so far in MB ({@code VmHWM} of /proc/self/status on
     * Linux and Android), or null where that file is not there. */
    public Double peakRssMb() {
        if (fixedPeakRssMb != null) {
            return fixedPeakRssMb;
        }
        try (BufferedReader in = new BufferedReader(new FileReader("/proc/self/status"))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("VmHWM:")) {
                    String[] parts = line.substring(6).trim().split("\\s+");
                    return Long.parseLong(parts[0]) / 1024.0;
                }
            }
        } catch (IOException | NumberFormatException err) {
            return null;
        }
        return null;
    }
}
