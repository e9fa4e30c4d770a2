package org.kerasskim.demo.core;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The statistics of {@code keras_skim.runtime.bench}, with NumPy's definitions. */
public final class BenchStatistics {
    private BenchStatistics() {
    }

    /** {@code numpy.median}. */
    public static double median(double[] values) {
        return percentile(values, 50);
    }

    /** {@code numpy.percentile(values, q)} with its default linear interpolation. */
    public static double percentile(double[] values, double q) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] a = values.clone();
        Arrays.sort(a);
        double index = q / 100.0 * (a.length - 1);
        int lo = (int) Math.floor(index);
        int hi = Math.min(lo + 1, a.length - 1);
        double t = index - lo;
        if (t == 0) {
            return a[lo];
        }
        if (q == 50 && a.length % 2 == 0) {
            return (a[lo] + a[hi]) / 2;  // NumPy's median is the mean of the two middle values
        }
        // NumPy's _lerp, which interpolates from the nearer end
        return t >= 0.5 ? a[hi] - (a[hi] - a[lo]) * (1 - t) : a[lo] + (a[hi] - a[lo]) * t;
    }

    /** {@code bench._summary}: median and 90th percentile of per-token microseconds. */
    public static Map<String, Object> summary(List<Double> perTokenUs) {
        double[] a = toArray(perTokenUs);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("median_us", median(a));
        out.put("p90_us", percentile(a, 90));
        out.put("runs", (long) a.length);
        return out;
    }

    static double[] toArray(List<Double> values) {
        double[] a = new double[values.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = values.get(i);
        }
        return a;
    }
}
