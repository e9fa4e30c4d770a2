package org.kerasskim.demo.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A benchmark of a model against the LSTM baseline, printed in the layout of
 * {@code keras_skim.runtime.bench.markdown_report}, so that a phone's report can be pasted into
 * an issue next to a desktop's.
 */
public final class BenchReport {
    public final String model;
    public final ModelMetadata modelMetadata;
    /** Null without a baseline. */
    public final String baseline;
    public final ModelMetadata baselineMetadata;
    public final String data;
    public final int samples;
    public final double meanTokens;
    public final int threads;
    public final int repeats;
    public final List<BenchResult> results;
    public final Double peakRssMb;
    public final MachineInfo machine;

    BenchReport(String model, ModelMetadata modelMetadata, String baseline, ModelMetadata baselineMetadata,
                String data, int samples, double meanTokens, int threads, int repeats, List<BenchResult> results,
                Double peakRssMb, MachineInfo machine) {
        this.model = model;
        this.modelMetadata = modelMetadata;
        this.baseline = baseline;
        this.baselineMetadata = baselineMetadata;
        this.data = data;
        this.samples = samples;
        this.meanTokens = meanTokens;
        this.threads = threads;
        this.repeats = repeats;
        this.results = Collections.unmodifiableList(new ArrayList<>(results));
        this.peakRssMb = peakRssMb;
        this.machine = machine;
    }

    /** The report as Markdown: {@code markdown_report}'s lines, in its order. */
    public String markdown() {
        StringBuilder out = new StringBuilder();
        boolean jumps = modelMetadata.jumps();
        out.append("# keras-skim bench\n\n");
        out.append("- model: `").append(model).append("` (").append(modelMetadata.modelKind)
                .append(", d=").append(modelMetadata.units);
        if (!jumps) {
            out.append(", d'=").append(Fmt.py(modelMetadata.smallUnits));
        }
        out.append(", ").append(modelMetadata.backend).append(" backend)\n");
        if (baseline != null) {
            out.append("- baseline: `").append(baseline).append("` (").append(baselineMetadata.modelKind)
                    .append(", ").append(baselineMetadata.backend).append(" backend)\n");
        } else {
            out.append("- baseline: none\n");
        }
        out.append("- data: ").append(data).append(" (").append(samples).append(" texts, ")
                .append(Fmt.fixed(meanTokens, 1)).append(" tokens on average)\n");
        out.append("- threads: ").append(threads).append(", repeats: ").append(repeats).append(" (warm-up excluded)\n");
        out.append("- peak RSS: ").append(peakRssMb == null ? "-" : Fmt.fixed(peakRssMb, 1)).append(" MB\n");
        out.append("- machine: ").append(machine.platform).append(", ").append(machine.processor).append(", ")
                .append(machine.cpuCount).append(" CPUs, ").append(machine.runtime).append('\n');
        out.append("- versions: ");
        String sep = "";
        for (Map.Entry<String, String> v : machine.versions.entrySet()) {
            out.append(sep).append(v.getKey()).append(' ').append(v.getValue());
            sep = ", ";
        }
        out.append('\n');
        out.append("- command: `").append(machine.command).append("`\n\n");
        if (jumps) {
            return out.append(jumpTable()).toString();
        }
        out.append("| threshold | skim rate | us/token median | p90 | baseline us/token | speed-up | Flop-R | "
                + "speed-up / Flop-R | accuracy |\n");
        out.append("|---|---|---|---|---|---|---|---|---|\n");
        for (BenchResult r : results) {
            out.append("| ").append(Fmt.fixed(r.threshold, 2))
                    .append(" | ").append(Fmt.fixed(r.skimRate, 3))
                    .append(" | ").append(Fmt.fixed(r.medianUs, 2))
                    .append(" | ").append(Fmt.fixed(r.p90Us, 2))
                    .append(" | ").append(orDash(r.baselineMedianUs, 2))
                    .append(" | ").append(orDash(r.speedup, 2))
                    .append(" | ").append(orDash(r.flopR, 2))
                    .append(" | ").append(orDash(r.speedupOverFlopR, 2))
                    .append(" | ").append(orDash(r.accuracy, 3))
                    .append(" |\n");
        }
        return out.toString();
    }

    /** {@code keras_skim.runtime.bench._jump_table}: a jump model's rows, fractions of the words. */
    private String jumpTable() {
        StringBuilder out = new StringBuilder();
        out.append("Read, skip and jump are fractions of the words (punctuation steers the jumps and is not "
                + "read); the threshold does not apply.\n\n");
        out.append("| words | read | skip | jump | us/token median | p90 | baseline us/token | speed-up | Flop-r | "
                + "speed-up / Flop-r | accuracy |\n");
        out.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (BenchResult r : results) {
            BenchResult.Jumps j = r.jumps;
            out.append("| ").append(j == null ? "-" : Long.toString(j.words))
                    .append(" | ").append(j == null ? "-" : Fmt.fixed(j.readFraction(), 3))
                    .append(" | ").append(j == null ? "-" : Fmt.fixed(j.skipFraction(), 3))
                    .append(" | ").append(j == null ? "-" : Fmt.fixed(j.jumpFraction(), 3))
                    .append(" | ").append(Fmt.fixed(r.medianUs, 2))
                    .append(" | ").append(Fmt.fixed(r.p90Us, 2))
                    .append(" | ").append(orDash(r.baselineMedianUs, 2))
                    .append(" | ").append(orDash(r.speedup, 2))
                    .append(" | ").append(orDash(r.flopR, 2))
                    .append(" | ").append(orDash(r.speedupOverFlopR, 2))
                    .append(" | ").append(orDash(r.accuracy, 3))
                    .append(" |\n");
        }
        return out.toString();
    }

    /** The report with the keys of {@code keras-skim bench}'s report.json; the machine's runtime
     * is under "runtime" where the desktop writes "python". */
    public Map<String, Object> toJson() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("model", model);
        out.put("model_kind", modelMetadata.modelKind);
        out.put("units", (long) modelMetadata.units);
        out.put("small_units", modelMetadata.smallUnits == null ? null : (long) modelMetadata.smallUnits);
        out.put("backend", modelMetadata.backend);
        out.put("baseline", baseline);
        out.put("baseline_kind", baselineMetadata == null ? null : baselineMetadata.modelKind);
        out.put("baseline_backend", baselineMetadata == null ? null : baselineMetadata.backend);
        out.put("data", data);
        out.put("samples", (long) samples);
        out.put("mean_tokens", meanTokens);
        out.put("threads", (long) threads);
        out.put("repeats", (long) repeats);
        List<Object> rs = new ArrayList<>();
        for (BenchResult r : results) {
            rs.add(r.toJson());
        }
        out.put("results", rs);
        out.put("peak_rss_mb", peakRssMb);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("platform", machine.platform);
        m.put("processor", machine.processor);
        m.put("runtime", machine.runtime);
        m.put("cpu_count", (long) machine.cpuCount);
        out.put("machine", m);
        out.put("versions", new LinkedHashMap<String, Object>(machine.versions));
        out.put("command", machine.command);
        return out;
    }

    private static String orDash(Double value, int digits) {
        return value == null ? "-" : Fmt.fixed(value, digits);
    }
}
