package org.kerasskim.demo.core;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One threshold of a benchmark: the fields of a {@code keras_skim.runtime.bench.bench_threshold} result. */
public final class BenchResult {
    /** A jump model's word counts over the texts ({@code keras_skim.runtime.bench.jump_summary}). */
    public static final class Jumps {
        /** Tokens that are words (not punctuation). */
        public final long words;
        /** Words read or skipped, i.e. not jumped over. */
        public final long visited;
        /** Words read. */
        public final long read;

        public Jumps(long words, long visited, long read) {
            this.words = words;
            this.visited = visited;
            this.read = read;
        }

        public double readFraction() {
            return words > 0 ? (double) read / words : 0.0;
        }

        public double skipFraction() {
            return words > 0 ? (double) (visited - read) / words : 0.0;
        }

        public double jumpFraction() {
            return words > 0 ? 1.0 - (double) visited / words : 0.0;
        }
    }

    public final double threshold;
    /** Tokens of the texts (an empty text counts as one). */
    public final long tokens;
    public final double skimRate;
    public final double medianUs;
    public final double p90Us;
    public final long runs;
    public final Double flopR;
    /** Null without labels. */
    public final Double accuracy;
    /** The baseline's, null without a baseline. */
    public final Double baselineMedianUs;
    public final Double baselineP90Us;
    public final Long baselineRuns;
    /** Per repeat: baseline time / model time over all texts; null without a baseline. */
    public final List<Double> speedupRuns;
    /**
     * Baseline time / model time over all texts, each text timed by its median over the
     * repeats (robust to one preempted call); null without a baseline.
     */
    public final Double speedup;
    /** Each text's median time over the repeats, seconds; null without a baseline. */
    public final List<Double> modelTextMedians;
    public final List<Double> baselineTextMedians;
    public final Double speedupPerTokenMedian;
    public final Double speedupOverFlopR;
    /** A jump model's word counts; null for other models. */
    public final Jumps jumps;

    BenchResult(double threshold, long tokens, double skimRate, Map<String, Object> model, Double flopR,
                Double accuracy, Map<String, Object> baseline, List<Double> speedupRuns,
                List<Double> modelTextMedians, List<Double> baselineTextMedians, Jumps jumps) {
        this.threshold = threshold;
        this.tokens = tokens;
        this.skimRate = skimRate;
        this.medianUs = (Double) model.get("median_us");
        this.p90Us = (Double) model.get("p90_us");
        this.runs = (Long) model.get("runs");
        this.flopR = flopR;
        this.accuracy = accuracy;
        this.baselineMedianUs = baseline == null ? null : (Double) baseline.get("median_us");
        this.baselineP90Us = baseline == null ? null : (Double) baseline.get("p90_us");
        this.baselineRuns = baseline == null ? null : (Long) baseline.get("runs");
        this.speedupRuns = speedupRuns == null ? null : new ArrayList<>(speedupRuns);
        this.modelTextMedians = modelTextMedians == null ? null : new ArrayList<>(modelTextMedians);
        this.baselineTextMedians = baselineTextMedians == null ? null : new ArrayList<>(baselineTextMedians);
        this.speedup = baselineTextMedians == null ? null : sum(baselineTextMedians) / sum(modelTextMedians);
        this.speedupPerTokenMedian = baseline == null ? null : baselineMedianUs / medianUs;
        this.speedupOverFlopR = speedup != null && flopR != null && flopR != 0 ? speedup / flopR : null;
        this.jumps = jumps;
    }

    /** The result as {@code keras-skim bench}'s report.json writes it (same keys). */
    public Map<String, Object> toJson() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("threshold", threshold);
        out.put("tokens", tokens);
        out.put("skim_rate", skimRate);
        out.put("model_latency", latency(medianUs, p90Us, runs));
        out.put("flop_r", flopR);
        if (jumps != null) {
            out.put("words", jumps.words);
            out.put("read_fraction", jumps.readFraction());
            out.put("skip_fraction", jumps.skipFraction());
            out.put("jump_fraction", jumps.jumpFraction());
        }
        if (accuracy != null) {
            out.put("accuracy", accuracy);
        }
        if (baselineMedianUs != null) {
            out.put("baseline_latency", latency(baselineMedianUs, baselineP90Us, baselineRuns));
            out.put("speedup_runs", speedupRuns);
            Map<String, Object> medians = new LinkedHashMap<>();
            medians.put("model", modelTextMedians);
            medians.put("baseline", baselineTextMedians);
            out.put("text_median_seconds", medians);
            out.put("speedup", speedup);
            out.put("speedup_per_token_median", speedupPerTokenMedian);
            if (speedupOverFlopR != null) {
                out.put("speedup_over_flop_r", speedupOverFlopR);
            }
        }
        return out;
    }

    private static double sum(List<Double> values) {
        double total = 0;
        for (double v : values) {
            total += v;
        }
        return total;
    }

    private static Map<String, Object> latency(double median, double p90, long runs) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("median_us", median);
        out.put("p90_us", p90);
        out.put("runs", runs);
        return out;
    }
}
