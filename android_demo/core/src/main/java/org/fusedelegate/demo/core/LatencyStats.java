package org.fusedelegate.demo.core;

import java.util.Arrays;

/** Latency statistics in milliseconds, computed as numpy does in {@code fusedelegate bench}. */
public final class LatencyStats {
  public final int count;
  public final double min;
  public final double max;
  public final double mean;
  public final double median;
  public final double p90;
  public final double p99;
  /** Population standard deviation (numpy's default, ddof=0). */
  public final double std;

  private LatencyStats(double[] sorted) {
    count = sorted.length;
    min = sorted[0];
    max = sorted[count - 1];
    double sum = 0;
    for (double t : sorted) sum += t;
    mean = sum / count;
    double squares = 0;
    for (double t : sorted) squares += (t - mean) * (t - mean);
    std = Math.sqrt(squares / count);
    median = percentileOfSorted(sorted, 50);
    p90 = percentileOfSorted(sorted, 90);
    p99 = percentileOfSorted(sorted, 99);
  }

  /** @throws IllegalArgumentException when there are no times */
  public static LatencyStats of(double[] times) {
    if (times.length == 0) throw new IllegalArgumentException("no latencies to summarise");
    double[] sorted = times.clone();
    Arrays.sort(sorted);
    return new LatencyStats(sorted);
  }

  public static double median(double[] values) {
    return percentile(values, 50);
  }

  /** numpy.percentile with its default linear interpolation; q in [0, 100]. */
  public static double percentile(double[] values, double q) {
    if (values.length == 0) throw new IllegalArgumentException("percentile of nothing");
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return percentileOfSorted(sorted, q);
  }

  private static double percentileOfSorted(double[] sorted, double q) {
    double rank = q / 100.0 * (sorted.length - 1);
    int below = (int) Math.floor(rank);
    int above = Math.min(below + 1, sorted.length - 1);
    double fraction = rank - below;
    return sorted[below] + (sorted[above] - sorted[below]) * fraction;
  }
}
