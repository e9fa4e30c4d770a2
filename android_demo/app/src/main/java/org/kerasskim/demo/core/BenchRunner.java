package org.kerasskim.demo.core;

import java.util.ArrayList;
import java.util.List;

/**
 * The Benchmark button: {@code keras_skim.runtime.bench.run_bench} on the phone. The model and
 * the baseline are run interleaved, text by text, alternating which goes first, so that the
 * phone's clock and thermal drift hit both alike; warm-up runs are not timed; per-token latency
 * is a run's time over its tokens; the speed-up is the median over repeats of the baseline's
 * total time over the model's. The time of a run is {@link RunResult#nanos}, the invoke alone.
 */
public final class BenchRunner {
    /** Told after each timed round. */
    public interface Progress {
        void update(int done, int total);
    }

    private BenchRunner() {
    }

    /**
     * @param model the chosen model
     * @param baseline the LSTM it is compared with, or null
     * @param data the texts (with labels for the accuracy column when known)
     * @param thresholds the model's thresholds to measure, one table row each
     * @param repeats timed runs of each text per threshold (at least 1)
     * @param warmup untimed runs of each text before the timed ones
     */
    public static BenchReport run(BenchSubject model, BenchSubject baseline, BenchTexts data, double[] thresholds,
                                  int repeats, int warmup, MachineInfo machine, Progress progress)
            throws ModelException {
        if (repeats < 1 || warmup < 0 || thresholds.length == 0) {
            throw new IllegalArgumentException("repeats must be >= 1, warmup >= 0, and one threshold at least");
        }
        List<int[]> modelIds = new ArrayList<>();
        List<int[]> baseIds = new ArrayList<>();
        double tokenSum = 0;
        for (String text : data.texts) {
            int[] ids = model.encode(text).ids;
            modelIds.add(ids);
            tokenSum += ids.length;
            baseIds.add(baseline == null ? ids : baseline.encode(text).ids);
        }
        List<BenchResult> results = new ArrayList<>();
        int total = thresholds.length * repeats;
        for (int t = 0; t < thresholds.length; t++) {
            final int offset = t * repeats;
            Progress inner = progress == null ? null : new Progress() {
                @Override
                public void update(int done, int ignored) {
                    progress.update(offset + done, total);
                }
            };
            results.add(benchThreshold(model, baseline, modelIds, baseIds, data.labels, thresholds[t], repeats,
                    warmup, inner));
        }
        return new BenchReport(model.path(), model.metadata(), baseline == null ? null : baseline.path(),
                baseline == null ? null : baseline.metadata(), data.description, data.texts.size(),
                data.texts.isEmpty() ? 0 : tokenSum / data.texts.size(), 1, repeats, results, machine.peakRssMb(),
                machine);
    }

    /** {@code bench_threshold}: one threshold of the model, in the same order of runs. */
    static BenchResult benchThreshold(BenchSubject model, BenchSubject baseline, List<int[]> modelIds,
                                      List<int[]> baseIds, List<Integer> labels, double threshold, int repeats,
                                      int warmup, Progress progress) throws ModelException {
        float modelThreshold = (float) threshold;
        float baseThreshold = baseline == null ? 0f : baseline.metadata().thresholdOrDefault();
        for (int k = 0; k < modelIds.size(); k++) {
            for (int w = 0; w < warmup; w++) {
                model.run(modelIds.get(k), modelThreshold);
                if (baseline != null) {
                    baseline.run(baseIds.get(k), baseThreshold);
                }
            }
        }
        List<Double> modelRuns = new ArrayList<>();
        List<Double> baseRuns = new ArrayList<>();
        List<Double> ratios = new ArrayList<>();
        double[][] modelTextNanos = new double[modelIds.size()][repeats];
        double[][] baseTextNanos = new double[modelIds.size()][repeats];
        RunResult[] firstRound = new RunResult[modelIds.size()];
        for (int r = 0; r < repeats; r++) {
            double totalModel = 0;
            double totalBase = 0;
            for (int k = 0; k < modelIds.size(); k++) {
                boolean modelFirst = (r + k) % 2 == 0;
                for (int turn = 0; turn < 2; turn++) {
                    if ((turn == 0) == modelFirst) {
                        int[] ids = modelIds.get(k);
                        RunResult out = model.run(ids, modelThreshold);
                        modelRuns.add(out.nanos / 1e3 / Math.max(ids.length, 1));
                        modelTextNanos[k][r] = out.nanos;
                        totalModel += out.nanos;
                        if (r == 0) {
                            firstRound[k] = out;
                        }
                    } else if (baseline != null) {
                        int[] ids = baseIds.get(k);
                        RunResult out = baseline.run(ids, baseThreshold);
                        baseRuns.add(out.nanos / 1e3 / Math.max(ids.length, 1));
                        baseTextNanos[k][r] = out.nanos;
                        totalBase += out.nanos;
                    }
                }
            }
            if (baseline != null && totalModel > 0) {
                ratios.add(totalBase / totalModel);
            }
            if (progress != null) {
                progress.update(r + 1, repeats);
            }
        }
        // the model is deterministic, so the first timed round's outputs stand for all rounds
        long reads = 0;
        long tokens = 0;
        int correct = 0;
        boolean jumps = model.metadata().jumps();
        long words = 0;
        long visited = 0;
        for (int k = 0; k < modelIds.size(); k++) {
            reads += firstRound[k].readCount;
            tokens += Math.max(modelIds.get(k).length, 1);
            if (jumps) {
                // keras_skim.runtime.bench.jump_counts: words are the tokens that are not punctuation,
                // visited the read or skipped ones
                for (int code : firstRound[k].tokenMask) {
                    TokenState state = model.metadata().state(code);
                    words += state == TokenState.NOT_A_WORD ? 0 : 1;
                    visited += state == TokenState.READ || state == TokenState.SKIMMED ? 1 : 0;
                }
            }
            if (labels != null) {
                double[] p = Prediction.probabilitiesFromLogits(firstRound[k].logits,
                        model.metadata().outputActivation);
                if (Prediction.argmax(p) == labels.get(k)) {
                    correct++;
                }
            }
        }
        double skimRate = tokens > 0 ? 1.0 - (double) reads / tokens : 0.0;
        Double accuracy = labels != null && !labels.isEmpty() ? (double) correct / modelIds.size() : null;
        BenchResult.Jumps jumpCounts = null;
        Double flopR = model.metadata().flopR(skimRate);
        if (jumps) {
            jumpCounts = new BenchResult.Jumps(words, visited, reads);
            flopR = model.metadata().jumpFlopR(words, visited, reads);
        }
        return new BenchResult(threshold, tokens, skimRate, BenchStatistics.summary(modelRuns),
                flopR, accuracy,
                baseline == null ? null : BenchStatistics.summary(baseRuns),
                baseline == null ? null : ratios,
                baseline == null ? null : medianSeconds(modelTextNanos),
                baseline == null ? null : medianSeconds(baseTextNanos), jumpCounts);
    }

    /** Each text's median time over the repeats, in seconds. */
    private static List<Double> medianSeconds(double[][] perText) {
        List<Double> out = new ArrayList<>();
        for (double[] nanos : perText) {
            out.add(BenchStatistics.median(nanos) / 1e9);
        }
        return out;
    }
}
