package org.fusedelegate.demo.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import java.util.Collections;
import org.junit.Test;

public class AccuracyTest {
  @Test
  public void absoluteAndRelativeToTheLargestReferenceValue() {
    Accuracy a = Accuracy.compare(new float[] {1.0f, -2.5f, 4.0f}, new float[] {1.0f, -2.0f, 4.0f});
    assertEquals(0.5, a.maxAbs, 0);
    assertEquals(0.5 / 4.0, a.maxRel, 0);
  }

  @Test
  public void identicalIsExact() {
    Accuracy a = Accuracy.compare(new float[] {3, -1}, new float[] {3, -1});
    assertEquals(0, a.maxAbs, 0);
    assertEquals(0, a.maxRel, 0);
  }

  @Test
  public void zeroReferenceGivesTheAbsoluteError() {
    Accuracy a = Accuracy.compare(new float[] {0.25f, 0}, new float[] {0, 0});
    assertEquals(0.25, a.maxRel, 0);
  }

  @Test
  public void differenceIsTakenInDouble() {
    Accuracy a = Accuracy.compare(new float[] {Float.MAX_VALUE}, new float[] {-Float.MAX_VALUE});
    assertEquals(2.0 * Float.MAX_VALUE, a.maxAbs, 0);
  }

  @Test
  public void nanIsReported() {
    Accuracy a = Accuracy.compare(new float[] {1, Float.NaN}, new float[] {1, 2});
    assertTrue(Double.isNaN(a.maxAbs));
    assertTrue(Double.isNaN(a.maxRel));
    assertTrue(Double.isNaN(Accuracy.worst(Arrays.asList(Accuracy.EXACT, a)).maxRel));
  }

  @Test
  public void worstTakesTheMaximumOfEach() {
    Accuracy w = Accuracy.worst(Arrays.asList(new Accuracy(1e-6, 1e-7), new Accuracy(1e-7, 1e-5)));
    assertEquals(1e-6, w.maxAbs, 0);
    assertEquals(1e-5, w.maxRel, 0);
    assertEquals(0, Accuracy.worst(Collections.<Accuracy>emptyList()).maxAbs, 0);
  }

  @Test
  public void compareAllGoesOutputByOutput() {
    Accuracy[] all = Accuracy.compareAll(new float[][] {{1}, {2, 3}}, new float[][] {{1}, {2, 2}});
    assertEquals(0, all[0].maxAbs, 0);
    assertEquals(1, all[1].maxAbs, 0);
  }

  @Test(expected = IllegalArgumentException.class)
  public void sizeMismatchIsAnError() {
    Accuracy.compare(new float[2], new float[3]);
  }

  @Test(expected = IllegalArgumentException.class)
  public void outputCountMismatchIsAnError() {
    Accuracy.compareAll(new float[1][1], new float[2][1]);
  }
}
