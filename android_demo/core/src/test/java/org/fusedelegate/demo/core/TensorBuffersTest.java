package org.fusedelegate.demo.core;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashSet;
import java.util.Set;
import org.junit.Test;

public class TensorBuffersTest {
  private static float[] filled(ElementType type, int count, long seed, double lo, double hi) {
    ByteBuffer b = TensorBuffers.allocate(count * type.bytes);
    TensorBuffers.fill(b, type, seed, lo, hi);
    assertEquals(0, b.position());
    return TensorBuffers.toFloats(b, type);
  }

  @Test
  public void allocatesDirectNativeOrder() {
    ByteBuffer b = TensorBuffers.allocate(16);
    assertTrue(b.isDirect());
    assertEquals(ByteOrder.nativeOrder(), b.order());
  }

  @Test
  public void floatsAreUniformInRangeAndSeeded() {
    float[] a = filled(ElementType.FLOAT32, 1000, 7, -1, 1);
    assertArrayEquals(a, filled(ElementType.FLOAT32, 1000, 7, -1, 1), 0);
    assertFalse(java.util.Arrays.equals(a, filled(ElementType.FLOAT32, 1000, 8, -1, 1)));
    double sum = 0;
    for (float v : a) {
      assertTrue(v >= -1 && v <= 1);
      sum += v;
    }
    assertEquals(0, sum / a.length, 0.1);
  }

  @Test
  public void integersCoverTheInclusiveRangeTheTypeHolds() {
    Set<Float> seen = new HashSet<>();
    for (float v : filled(ElementType.INT32, 300, 1, -1, 1)) seen.add(v);
    assertEquals(3, seen.size());
    assertTrue(seen.contains(-1f) && seen.contains(0f) && seen.contains(1f));
    seen.clear();
    for (float v : filled(ElementType.UINT8, 300, 1, -1, 1)) seen.add(v);
    assertEquals(2, seen.size());  // uint8 holds 0 and 1 of {-1, 0, 1}
    for (float v : filled(ElementType.UINT8, 300, 1, 200, 1000)) assertTrue(v >= 200 && v <= 255);
    for (float v : filled(ElementType.INT8, 300, 1, -1000, -100)) assertTrue(v >= -128 && v <= -100);
    for (float v : filled(ElementType.INT16, 300, 1, -2.5, 2.5)) assertTrue(v >= -2 && v <= 2);
    for (float v : filled(ElementType.INT64, 300, 1, 5, 6)) assertTrue(v == 5 || v == 6);
    for (float v : filled(ElementType.BOOL, 300, 1, -1, 1)) assertTrue(v == 0 || v == 1);
  }

  @Test
  public void readsEveryTypeBack() {
    ByteBuffer b = TensorBuffers.allocate(8);
    b.putInt(-7).putInt(1 << 20);
    assertArrayEquals(new float[] {-7, 1 << 20}, TensorBuffers.toFloats(b, ElementType.INT32), 0);
    b.clear();
    b.put((byte) 0xff).put((byte) 1);
    assertEquals(255, TensorBuffers.toFloats(b, ElementType.UINT8)[0], 0);
    assertEquals(-1, TensorBuffers.toFloats(b, ElementType.INT8)[0], 0);
    b.clear();
    b.putLong(-3);
    assertArrayEquals(new float[] {-3}, TensorBuffers.toFloats(b, ElementType.INT64), 0);
    assertEquals(8, b.position());  // toFloats leaves the caller's position alone
  }

  @Test(expected = IllegalArgumentException.class)
  public void emptyIntegerRangeIsAnError() {
    filled(ElementType.INT32, 4, 0, 0.2, 0.8);
  }

  @Test(expected = IllegalArgumentException.class)
  public void partialElementIsAnError() {
    TensorBuffers.fill(TensorBuffers.allocate(6), ElementType.FLOAT32, 0, -1, 1);
  }

  @Test
  public void typesByTfliteName() {
    assertEquals(ElementType.FLOAT32, ElementType.fromName("FLOAT32"));
    assertEquals(1, ElementType.fromName("BOOL").bytes);
  }

  @Test(expected = IllegalArgumentException.class)
  public void stringTensorsAreNotSupported() {
    ElementType.fromName("STRING");
  }
}
