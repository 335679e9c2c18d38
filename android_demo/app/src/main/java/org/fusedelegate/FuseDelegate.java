package org.fusedelegate;

import java.util.Map;
import org.fusedelegate.demo.core.DelegateOptions;
import org.tensorflow.lite.Delegate;

/**
 * fusedelegate for the TFLite Java API: {@code new Interpreter(model, new
 * Interpreter.Options().addDelegate(delegate))}.
 *
 * <p>Options are the library's, as in Python: {@code new FuseDelegate("fusions:all;num_threads:2")}.
 * The library checks them; a bad one throws IllegalArgumentException with its message.
 * Close the delegate after every interpreter that uses it.
 */
public final class FuseDelegate implements Delegate {
  static {
    System.loadLibrary("fusedelegate");
  }

  private long handle;

  /** The library's defaults. */
  public FuseDelegate() {
    this(DelegateOptions.empty());
  }

  /** @param options {@code "key:value;key:value"} */
  public FuseDelegate(String options) {
    this(DelegateOptions.parse(options));
  }

  public FuseDelegate(Map<String, ?> options) {
    this(DelegateOptions.of(options));
  }

  public FuseDelegate(DelegateOptions options) {
    handle = nativeCreate(options.keys(), options.values());
  }

  /** The TfLiteDelegate*. @throws IllegalStateException once closed */
  @Override
  public synchronized long getNativeHandle() {
    if (handle == 0) throw new IllegalStateException("fusedelegate: the delegate is closed");
    return handle;
  }

  /** Destroys the native delegate; later calls do nothing. */
  @Override
  public synchronized void close() {
    if (handle != 0) {
      nativeDelete(handle);
      handle = 0;
    }
  }

  /** The ISAs this device runs, best last (e.g. scalar, neon): the values {@code isa} takes here. */
  public static String[] availableIsas() {
    return nativeAvailableIsas();
  }

  private static native long nativeCreate(String[] keys, String[] values);

  private static native void nativeDelete(long handle);

  private static native String[] nativeAvailableIsas();
}
