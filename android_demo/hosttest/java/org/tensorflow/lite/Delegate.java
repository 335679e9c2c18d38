package org.tensorflow.lite;

import java.io.Closeable;

/**
 * Host-test stand-in for the interface of the same name in org.tensorflow:tensorflow-lite 2.14,
 * declared as there, so that the app's FuseDelegate.java compiles and runs on the JVM here.
 * Not part of the app: Gradle takes the real one from the AAR.
 */
public interface Delegate extends Closeable {
  long getNativeHandle();

  @Override
  default void close() {}
}
