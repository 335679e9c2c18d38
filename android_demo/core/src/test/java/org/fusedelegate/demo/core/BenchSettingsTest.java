package org.fusedelegate.demo.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import org.junit.Test;

public class BenchSettingsTest {
  private static String errorOf(String runs, String threads, String options) {
    try {
      BenchSettings.fromText(runs, threads, options);
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    fail("accepted " + runs + " " + threads + " " + options);
    return null;
  }

  @Test
  public void blankFieldsMeanTheBenchDefaults() {
    BenchSettings s = BenchSettings.fromText(" ", null, "");
    assertEquals(50, s.runs);
    assertEquals(1, s.runsPerRound);
    assertEquals(5, s.warmupRuns);
    assertEquals(1, s.numThreads);
    assertTrue(s.options.isEmpty());
    assertEquals(-1, s.inputLow, 0);
    assertEquals(1, s.inputHigh, 0);
    assertEquals(150, s.maxSeconds, 0);
  }

  @Test
  public void readsTheFields() {
    BenchSettings s = BenchSettings.fromText("200", "-1", "fusions:all;num_threads:2");
    assertEquals(200, s.runs);
    assertEquals(-1, s.numThreads);
    assertEquals("fusions:all;num_threads:2", s.options.toString());
  }

  @Test
  public void badFieldsAreNamed() {
    assertEquals("runs: 'ten' is not an integer in [1, 100000]", errorOf("ten", "1", ""));
    assertEquals("runs: '0' is not an integer in [1, 100000]", errorOf("0", "1", ""));
    assertEquals("threads: '2000' is not an integer in [-1, 1024]", errorOf("5", "2000", ""));
    assertEquals("threads: 0 is not a thread count (use -1 for the default)", errorOf("5", "0", ""));
  }

  @Test
  public void badDelegateOptionsGetTheLibraryMessage() {
    assertEquals("fusedelegate: option 'fusions' has bad value 'fast'; accepted: all, none, or a comma list of: "
        + "elementwise, fully_connected, conv, transformer, int8_conv", errorOf("5", "1", "fusions:fast"));
    assertEquals("delegate options: 'fusions' is not key:value", errorOf("5", "1", "fusions"));
  }

  @Test
  public void planFileIsAddedForFuseDelegateAloneUnlessChosen() {
    BenchSettings s = BenchSettings.fromText("5", "1", "fusions:all");
    assertEquals("fusions:all;plan_file:/c/plan.json", s.optionsFor(Config.FUSEDELEGATE, "/c/plan.json").toString());
    assertEquals("fusions:all", s.optionsFor(Config.FUSEDELEGATE_XNNPACK, "/c/plan.json").toString());
    assertEquals("/c/plan.json", s.planFile("/c/plan.json"));
    BenchSettings chosen = BenchSettings.fromText("5", "1", "plan_file:/mine.json");
    assertEquals("plan_file:/mine.json", chosen.optionsFor(Config.FUSEDELEGATE, "/c/plan.json").toString());
    assertEquals("/mine.json", chosen.planFile("/c/plan.json"));
  }

  @Test(expected = IllegalArgumentException.class)
  public void constructorChecksRanges() {
    new BenchSettings(5, 0, 5, 1, DelegateOptions.empty(), -1, 1, 10);
  }
}
