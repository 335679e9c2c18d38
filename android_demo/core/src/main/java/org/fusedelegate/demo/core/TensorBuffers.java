package org.fusedelegate.demo.core;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;

/** Fixed seeded inputs and float views of outputs, for tensors held in ByteBuffers. */
public final class TensorBuffers {
  private TensorBuffers() {}

  /** A direct buffer in native order, as the TFLite Java API wants it. */
  public static ByteBuffer allocate(int bytes) {
    return ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
  }

  /**
   * Fills the whole buffer with values drawn from {@code seed}, as {@code fusedelegate bench}
   * does: floats uniform in [lo, hi), integers uniform over the integers in [lo, hi] that the
   * type holds, booleans 0 or 1. Leaves the buffer rewound.
   */
  public static void fill(ByteBuffer buffer, ElementType type, long seed, double lo, double hi) {
    if (!(lo <= hi)) throw new IllegalArgumentException("input range [" + lo + ", " + hi + "] is empty");
    if (buffer.capacity() % type.bytes != 0)
      throw new IllegalArgumentException(buffer.capacity() + " bytes is not a whole number of " + type);
    Random random = new Random(seed);
    long[] range = integerRange(type, lo, hi);
    buffer.clear();
    while (buffer.hasRemaining()) {
      if (type == ElementType.FLOAT32) {
        buffer.putFloat((float) (lo + (hi - lo) * random.nextDouble()));
        continue;
      }
      long v = range[0] + (long) Math.floor(random.nextDouble() * (range[1] - range[0] + 1));
      switch (type) {
        case INT32: buffer.putInt((int) v); break;
        case INT64: buffer.putLong(v); break;
        case INT16: buffer.putShort((short) v); break;
        default: buffer.put((byte) v); break;  // INT8, UINT8 (as its low byte), BOOL
      }
    }
    buffer.rewind();
  }

  /** The integer bounds [first, last] for {@code type} within [lo, hi]. */
  static long[] integerRange(ElementType type, double lo, double hi) {
    long min;
    long max;
    switch (type) {
      case BOOL: return new long[] {0, 1};
      case UINT8: min = 0; max = 255; break;
      case INT8: min = Byte.MIN_VALUE; max = Byte.MAX_VALUE; break;
      case INT16: min = Short.MIN_VALUE; max = Short.MAX_VALUE; break;
      case INT32: min = Integer.MIN_VALUE; max = Integer.MAX_VALUE; break;
      default: min = -(1L << 52); max = 1L << 52; break;  // INT64, FLOAT32: doubles stay exact
    }
    long first = (long) Math.max(Math.ceil(lo), min);
    long last = (long) Math.min(Math.floor(hi), max);
    if (first > last)
      throw new IllegalArgumentException("no " + type + " value lies in [" + lo + ", " + hi + "]");
    return new long[] {first, last};
  }

  /** Every element of the buffer (from 0 to its capacity) as a float; UINT8 unsigned. */
  public static float[] toFloats(ByteBuffer buffer, ElementType type) {
    ByteBuffer b = buffer.duplicate().order(buffer.order());
    b.clear();
    float[] out = new float[b.capacity() / type.bytes];
    for (int i = 0; i < out.length; i++) {
      switch (type) {
        case FLOAT32: out[i] = b.getFloat(); break;
        case INT32: out[i] = b.getInt(); break;
        case INT64: out[i] = b.getLong(); break;
        case INT16: out[i] = b.getShort(); break;
        case UINT8: out[i] = b.get() & 0xff; break;
        default: out[i] = b.get(); break;  // INT8, BOOL
      }
    }
    return out;
  }
}
