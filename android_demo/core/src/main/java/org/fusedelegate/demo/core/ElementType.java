package org.fusedelegate.demo.core;

/** Tensor element types, named as {@code org.tensorflow.lite.DataType} names them. */
public enum ElementType {
  FLOAT32(4),
  INT32(4),
  UINT8(1),
  INT64(8),
  BOOL(1),
  INT16(2),
  INT8(1);

  public final int bytes;

  ElementType(int bytes) {
    this.bytes = bytes;
  }

  /** @throws IllegalArgumentException for a type the demo cannot fill or compare (e.g. STRING) */
  public static ElementType fromName(String name) {
    for (ElementType t : values())
      if (t.name().equals(name)) return t;
    throw new IllegalArgumentException("unsupported tensor type " + name);
  }
}
