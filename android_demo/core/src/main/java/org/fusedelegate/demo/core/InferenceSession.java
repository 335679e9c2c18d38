package org.fusedelegate.demo.core;

/** One configured interpreter with fixed inputs, as the benchmark drives it. */
public interface InferenceSession extends AutoCloseable {
  /** Runs one inference; returns its latency in milliseconds. */
  double run() throws Exception;

  /** The outputs of the last run, each flattened to floats. */
  float[][] outputs() throws Exception;

  @Override
  void close();

  /** Opens the session of one configuration. */
  interface Factory {
    InferenceSession open(Config config) throws Exception;
  }

  /** Told after each step; called on the benchmark's thread. */
  interface Progress {
    void update(String stage, int done, int total);
  }
}
