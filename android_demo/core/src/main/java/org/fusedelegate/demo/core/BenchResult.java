package org.fusedelegate.demo.core;

import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** Everything one benchmark measured. */
public final class BenchResult {
  public final BenchSettings settings;
  /** The configuration whose outputs the others are compared with. */
  public final Config reference;
  /** Completed rounds. */
  public final int rounds;
  public final List<ConfigResult> configs;

  BenchResult(BenchSettings settings, Config reference, int rounds, List<ConfigResult> configs) {
    this.settings = settings;
    this.reference = reference;
    this.rounds = rounds;
    this.configs = Collections.unmodifiableList(configs);
  }

  /** The result of {@code config}, or null if it was not run. */
  public ConfigResult get(Config config) {
    for (ConfigResult c : configs)
      if (c.config == config) return c;
    return null;
  }

  /** One configuration's figures. */
  public static final class ConfigResult {
    public final Config config;
    /** Creating the interpreter (and the delegate). */
    public final double initMs;
    public final double firstInferenceMs;
    public final LatencyStats latency;
    private final double[] timesMs;
    private final Map<Config, Double> ratios;
    private final Accuracy[] accuracy;

    ConfigResult(Config config, double initMs, double firstInferenceMs, double[] timesMs,
        Map<Config, Double> ratios, Accuracy[] accuracy) {
      this.config = config;
      this.initMs = initMs;
      this.firstInferenceMs = firstInferenceMs;
      this.timesMs = timesMs.clone();
      this.latency = LatencyStats.of(timesMs);
      this.ratios = new EnumMap<>(ratios);
      this.accuracy = accuracy.clone();
    }

    /** Every timed run, in order (warm-up and first inference excluded). */
    public double[] timesMs() {
      return timesMs.clone();
    }

    /**
     * Latency relative to {@code baseline}: the median over rounds of this configuration's round
     * median over the baseline's (below 1 is faster). Null if the baseline was not run.
     */
    public Double ratioVs(Config baseline) {
      return ratios.get(baseline);
    }

    /** 1 / {@link #ratioVs}: above 1 is faster than the baseline. Null if it was not run. */
    public Double speedUpVs(Config baseline) {
      Double r = ratios.get(baseline);
      return r == null ? null : 1.0 / r;
    }

    /** Per output, against the reference configuration's outputs for the same inputs. */
    public Accuracy[] accuracy() {
      return accuracy.clone();
    }

    public Accuracy worstAccuracy() {
      return Accuracy.worst(Arrays.asList(accuracy));
    }
  }
}
