package org.fusedelegate.demo.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.Test;

public class BenchmarkTest {
  private static final List<Config> ALL = Arrays.asList(Config.values());

  /** A fake clock in nanoseconds that the fake sessions advance. */
  private long now;
  private final List<Config> calls = new ArrayList<>();
  private final Map<Config, FakeSession> sessions = new EnumMap<>(Config.class);
  private final Map<Config, Double> latency = new EnumMap<>(Config.class);
  private Config failingRun;
  private Config failingOpen;
  /** Multiplies every latency from this round on, like a device that heats up. */
  private double drift = 1;

  public BenchmarkTest() {
    latency.put(Config.BUILTIN, 4.0);
    latency.put(Config.XNNPACK, 2.0);
    latency.put(Config.FUSEDELEGATE, 1.0);
    latency.put(Config.FUSEDELEGATE_XNNPACK, 0.8);
  }

  private final class FakeSession implements InferenceSession {
    final Config config;
    int runs;
    boolean closed;

    FakeSession(Config config) {
      this.config = config;
    }

    @Override
    public double run() {
      if (config == failingRun) throw new IllegalStateException("invoke failed");
      runs++;
      calls.add(config);
      // The first inference and the warm-up runs are slow: they must not count.
      double ms = runs == 1 ? 100 : runs <= 1 + BenchSettings.DEFAULT_WARMUP_RUNS ? 50 : latency.get(config) * drift;
      now += (long) (ms * 1e6);
      return ms;
    }

    @Override
    public float[][] outputs() {
      float error = config.usesFuseDelegate ? 1e-3f : 0;
      return new float[][] {{1, 2 + error}, {config == Config.XNNPACK ? -4.5f : -4}};
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  private final InferenceSession.Factory factory = config -> {
    if (config == failingOpen) throw new IllegalStateException("cannot create");
    now += 3_000_000;  // 3 ms
    FakeSession s = new FakeSession(config);
    sessions.put(config, s);
    return s;
  };

  private static BenchSettings settings(int runs, int runsPerRound, double maxSeconds) {
    return new BenchSettings(runs, runsPerRound, BenchSettings.DEFAULT_WARMUP_RUNS, 1,
        DelegateOptions.parse("fusions:all"), -1, 1, maxSeconds);
  }

  private BenchResult run(List<Config> configs, BenchSettings settings) throws Exception {
    return new Benchmark(() -> now).run(factory, configs, settings, (stage, done, total) -> {});
  }

  @Test
  public void timesOnlyTheRoundsAndComparesWithBuiltin() throws Exception {
    BenchResult r = run(ALL, settings(10, 3, 100));
    assertEquals(10, r.rounds);
    assertEquals(Config.BUILTIN, r.reference);
    BenchResult.ConfigResult fd = r.get(Config.FUSEDELEGATE);
    assertEquals(30, fd.timesMs().length);
    assertEquals(1.0, fd.latency.min, 0);
    assertEquals(1.0, fd.latency.max, 0);
    assertEquals(100, fd.firstInferenceMs, 0);
    assertEquals(3, fd.initMs, 1e-9);
    assertEquals(0.25, fd.ratioVs(Config.BUILTIN), 1e-12);
    assertEquals(4.0, fd.speedUpVs(Config.BUILTIN), 1e-12);
    assertEquals(2.0, fd.speedUpVs(Config.XNNPACK), 1e-12);
    assertEquals(1.0, r.get(Config.BUILTIN).speedUpVs(Config.BUILTIN), 0);
    for (FakeSession s : sessions.values()) {
      assertEquals(1 + BenchSettings.DEFAULT_WARMUP_RUNS + 30, s.runs);
      assertTrue(s.closed);
    }
  }

  @Test
  public void accuracyIsPerOutputAgainstTheReference() throws Exception {
    BenchResult r = run(ALL, settings(2, 1, 100));
    Accuracy[] fd = r.get(Config.FUSEDELEGATE).accuracy();
    assertEquals(2, fd.length);
    assertEquals(1e-3, fd[0].maxAbs, 1e-6);
    assertEquals(1e-3 / 2, fd[0].maxRel, 1e-6);
    assertEquals(0, fd[1].maxAbs, 0);
    assertEquals(0.5, r.get(Config.XNNPACK).worstAccuracy().maxAbs, 0);
    assertEquals(0, r.get(Config.BUILTIN).worstAccuracy().maxAbs, 0);
  }

  @Test
  public void roundsRotateTheOrder() throws Exception {
    run(ALL, settings(5, 1, 100));
    int timed = 4 * 5;
    List<Config> rounds = calls.subList(calls.size() - timed, calls.size());
    for (int r = 0; r < 5; r++) assertEquals(ALL.get(r % 4), rounds.get(4 * r));
    assertEquals(Arrays.asList(Config.XNNPACK, Config.FUSEDELEGATE, Config.FUSEDELEGATE_XNNPACK, Config.BUILTIN),
        rounds.subList(4, 8));
  }

  @Test
  public void pairedRatiosFollowDrift() throws Exception {
    // Every latency doubles halfway: each round's ratio stays 0.25.
    List<Config> two = Arrays.asList(Config.BUILTIN, Config.FUSEDELEGATE);
    Benchmark b = new Benchmark(() -> now);
    BenchResult r = b.run(factory, two, settings(8, 1, 100), (stage, done, total) -> {
      if (stage.equals("rounds") && done == 4) drift = 2;
    });
    assertEquals(0.25, r.get(Config.FUSEDELEGATE).ratioVs(Config.BUILTIN), 1e-12);
    assertEquals(2.0, r.get(Config.FUSEDELEGATE).latency.max, 0);
  }

  @Test
  public void pairedRatioIsTheMedianOfRoundRatios() {
    assertEquals(0.5, Benchmark.pairedRatio(new double[] {1, 3, 2, 9}, new double[] {2, 2, 4, 1}, 3), 0);
  }

  @Test
  public void withoutBuiltinTheFirstIsTheReference() throws Exception {
    BenchResult r = run(Arrays.asList(Config.XNNPACK, Config.FUSEDELEGATE_XNNPACK), settings(3, 1, 100));
    assertEquals(Config.XNNPACK, r.reference);
    assertNull(r.get(Config.FUSEDELEGATE_XNNPACK).speedUpVs(Config.BUILTIN));
    assertEquals(2.5, r.get(Config.FUSEDELEGATE_XNNPACK).speedUpVs(Config.XNNPACK), 1e-12);
    assertNull(r.get(Config.BUILTIN));
  }

  @Test
  public void stopsStartingRoundsAfterMaxSeconds() throws Exception {
    // Each round takes 7.8 ms of fake time.
    BenchResult r = run(ALL, settings(1000, 1, 0.05));
    assertEquals(7, r.rounds);
    assertEquals(7, r.get(Config.BUILTIN).timesMs().length);
    assertEquals(1, run(ALL, settings(1000, 1, 1e-9)).rounds);
  }

  @Test
  public void closesEverySessionWhenARunFails() throws Exception {
    failingRun = Config.FUSEDELEGATE;
    try {
      run(ALL, settings(3, 1, 100));
      fail();
    } catch (IllegalStateException e) {
      assertEquals("invoke failed", e.getMessage());
    }
    assertEquals(4, sessions.size());
    for (FakeSession s : sessions.values()) assertTrue(s.closed);
  }

  @Test
  public void closesTheOpenedSessionsWhenOpeningFails() throws Exception {
    failingOpen = Config.FUSEDELEGATE;
    try {
      run(ALL, settings(3, 1, 100));
      fail();
    } catch (IllegalStateException e) {
      assertEquals("cannot create", e.getMessage());
    }
    assertEquals(2, sessions.size());
    for (FakeSession s : sessions.values()) assertTrue(s.closed);
  }

  @Test
  public void interruptCancels() throws Exception {
    Thread.currentThread().interrupt();
    try {
      run(ALL, settings(3, 1, 100));
      fail();
    } catch (InterruptedException expected) {
      assertTrue(sessions.isEmpty());
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  public void progressEndsWithEveryRoundDone() throws Exception {
    List<String> seen = new ArrayList<>();
    new Benchmark(() -> now).run(factory, ALL, settings(4, 1, 100),
        (stage, done, total) -> seen.add(stage + " " + done + "/" + total));
    assertEquals("creating builtin 0/4", seen.get(0));
    assertEquals("rounds 4/4", seen.get(seen.size() - 1));
  }

  @Test(expected = IllegalArgumentException.class)
  public void noConfigurationIsAnError() throws Exception {
    run(new ArrayList<Config>(), settings(1, 1, 1));
  }
}
