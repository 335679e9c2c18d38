package org.fusedelegate.demo.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Runs configurations as {@code fusedelegate bench} does: every configuration once (its outputs
 * are compared with the reference's), then warm-up runs, then rounds that visit every
 * configuration in a rotating order, so that drift on a busy device cancels in the ratios,
 * which are paired per round. Rounds stop early once they have taken {@code maxSeconds}.
 */
public final class Benchmark {
  private final LongSupplier nanoClock;

  public Benchmark() {
    this(System::nanoTime);
  }

  /** With a clock for the init times (tests). */
  public Benchmark(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
  }

  /**
   * Runs {@code configs} (in this order for the first inference). The reference for accuracy
   * is BUILTIN if it is among them, else the first. Sessions are closed before returning.
   *
   * @throws InterruptedException when the thread is interrupted between two runs
   * @throws Exception what opening or running a session throws
   */
  public BenchResult run(InferenceSession.Factory factory, List<Config> configs, BenchSettings settings,
      InferenceSession.Progress progress) throws Exception {
    if (configs.isEmpty()) throw new IllegalArgumentException("no configuration to run");
    Config reference = configs.contains(Config.BUILTIN) ? Config.BUILTIN : configs.get(0);
    int n = configs.size();
    List<InferenceSession> sessions = new ArrayList<>();
    try {
      double[] initMs = new double[n];
      for (int i = 0; i < n; i++) {
        checkInterrupt();
        progress.update("creating " + configs.get(i).label, i, n);
        long start = nanoClock.getAsLong();
        sessions.add(factory.open(configs.get(i)));
        initMs[i] = (nanoClock.getAsLong() - start) / 1e6;
      }

      double[] firstMs = new double[n];
      float[][][] outputs = new float[n][][];
      for (int i = 0; i < n; i++) {
        checkInterrupt();
        progress.update("first inference", i, n);
        firstMs[i] = sessions.get(i).run();
        outputs[i] = sessions.get(i).outputs();
      }
      float[][] referenceOutputs = outputs[configs.indexOf(reference)];

      for (int i = 0; i < n; i++) {
        progress.update("warm-up", i, n);
        for (int w = 0; w < settings.warmupRuns; w++) {
          checkInterrupt();
          sessions.get(i).run();
        }
      }

      double[][] times = new double[n][settings.runs * settings.runsPerRound];
      double[][] roundMedians = new double[n][settings.runs];
      double[] round = new double[settings.runsPerRound];
      long roundsStart = nanoClock.getAsLong();
      int rounds = 0;
      while (rounds < settings.runs
          && (rounds == 0 || (nanoClock.getAsLong() - roundsStart) / 1e9 < settings.maxSeconds)) {
        progress.update("rounds", rounds, settings.runs);
        for (int k = 0; k < n; k++) {
          int i = (rounds + k) % n;
          for (int j = 0; j < settings.runsPerRound; j++) {
            checkInterrupt();
            round[j] = sessions.get(i).run();
            times[i][rounds * settings.runsPerRound + j] = round[j];
          }
          roundMedians[i][rounds] = LatencyStats.median(round);
        }
        rounds++;
      }
      progress.update("rounds", rounds, settings.runs);

      List<BenchResult.ConfigResult> results = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        Map<Config, Double> ratios = new EnumMap<>(Config.class);
        for (Config baseline : new Config[] {Config.BUILTIN, Config.XNNPACK}) {
          int b = configs.indexOf(baseline);
          if (b >= 0) ratios.put(baseline, pairedRatio(roundMedians[i], roundMedians[b], rounds));
        }
        double[] done = Arrays.copyOf(times[i], rounds * settings.runsPerRound);
        results.add(new BenchResult.ConfigResult(configs.get(i), initMs[i], firstMs[i], done, ratios,
            Accuracy.compareAll(outputs[i], referenceOutputs)));
      }
      return new BenchResult(settings, reference, rounds, results);
    } finally {
      for (int i = sessions.size() - 1; i >= 0; i--) sessions.get(i).close();
    }
  }

  /** The median over the first {@code rounds} rounds of a[r] / b[r]. */
  static double pairedRatio(double[] a, double[] b, int rounds) {
    double[] ratios = new double[rounds];
    for (int r = 0; r < rounds; r++) ratios[r] = a[r] / b[r];
    return LatencyStats.median(ratios);
  }

  private static void checkInterrupt() throws InterruptedException {
    if (Thread.interrupted()) throw new InterruptedException("benchmark cancelled");
  }
}
