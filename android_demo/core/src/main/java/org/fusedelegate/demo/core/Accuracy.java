package org.fusedelegate.demo.core;

import java.util.List;

/**
 * How far one output is from a reference, as {@code fusedelegate bench} reports it:
 * max |y - ref| and that divided by max |ref| (the absolute error when the reference is all zeros).
 * A NaN anywhere makes both NaN.
 */
public final class Accuracy {
  public static final Accuracy EXACT = new Accuracy(0, 0);

  public final double maxAbs;
  public final double maxRel;

  public Accuracy(double maxAbs, double maxRel) {
    this.maxAbs = maxAbs;
    this.maxRel = maxRel;
  }

  /** @throws IllegalArgumentException when the sizes differ */
  public static Accuracy compare(float[] actual, float[] reference) {
    if (actual.length != reference.length)
      throw new IllegalArgumentException(
          "output has " + actual.length + " values, reference has " + reference.length);
    double diff = 0;
    double scale = 0;
    for (int i = 0; i < actual.length; i++) {
      double d = Math.abs((double) actual[i] - reference[i]);
      if (Double.isNaN(d)) return new Accuracy(Double.NaN, Double.NaN);
      diff = Math.max(diff, d);
      scale = Math.max(scale, Math.abs((double) reference[i]));
    }
    return new Accuracy(diff, scale > 0 ? diff / scale : diff);
  }

  /** Output by output. @throws IllegalArgumentException when the output counts differ */
  public static Accuracy[] compareAll(float[][] actual, float[][] reference) {
    if (actual.length != reference.length)
      throw new IllegalArgumentException(
          actual.length + " outputs, but the reference has " + reference.length);
    Accuracy[] result = new Accuracy[actual.length];
    for (int i = 0; i < actual.length; i++) result[i] = compare(actual[i], reference[i]);
    return result;
  }

  /** The largest errors over several outputs (NaN wins); EXACT for none. */
  public static Accuracy worst(List<Accuracy> all) {
    double abs = 0;
    double rel = 0;
    for (Accuracy a : all) {
      abs = Math.max(abs, a.maxAbs);  // Math.max keeps NaN
      rel = Math.max(rel, a.maxRel);
    }
    return new Accuracy(abs, rel);
  }

  @Override
  public String toString() {
    return "max abs " + maxAbs + ", max rel " + maxRel;
  }
}
