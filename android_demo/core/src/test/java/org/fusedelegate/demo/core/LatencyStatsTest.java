package org.fusedelegate.demo.core;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class LatencyStatsTest {
  private static final double EPS = 1e-12;

  @Test
  public void matchesNumpy() {
    // numpy: min, median, mean, percentile 90 and 99 (linear), std (ddof=0)
    LatencyStats s = LatencyStats.of(new double[] {3, 1, 4, 1, 5, 9, 2, 6, 5, 3});
    assertEquals(10, s.count);
    assertEquals(1.0, s.min, EPS);
    assertEquals(9.0, s.max, EPS);
    assertEquals(3.5, s.median, EPS);
    assertEquals(3.9, s.mean, EPS);
    assertEquals(6.3, s.p90, EPS);
    assertEquals(8.73, s.p99, EPS);
    assertEquals(2.3430749027719964, s.std, EPS);
  }

  @Test
  public void singleValue() {
    LatencyStats s = LatencyStats.of(new double[] {7});
    assertEquals(7, s.median, 0);
    assertEquals(7, s.p90, 0);
    assertEquals(0, s.std, 0);
  }

  @Test
  public void percentileInterpolates() {
    assertEquals(1.25, LatencyStats.percentile(new double[] {2, 1}, 25), EPS);
    assertEquals(2.5, LatencyStats.median(new double[] {4, 1, 3, 2}), EPS);
  }

  @Test
  public void doesNotReorderTheCallersArray() {
    double[] t = {3, 1, 2};
    LatencyStats.of(t);
    LatencyStats.median(t);
    assertEquals(3, t[0], 0);
  }

  @Test(expected = IllegalArgumentException.class)
  public void emptyIsAnError() {
    LatencyStats.of(new double[0]);
  }
}
