package org.fusedelegate.demo.core;

/** What one benchmark run does; defaults as {@code fusedelegate bench}. */
public final class BenchSettings {
  public static final int DEFAULT_RUNS = 50;
  public static final int DEFAULT_WARMUP_RUNS = 5;
  public static final int DEFAULT_THREADS = 1;
  public static final int MAX_RUNS = 100000;
  public static final double DEFAULT_MAX_SECONDS = 150;

  /** Rounds; each round runs every configuration runsPerRound times. */
  public final int runs;
  public final int runsPerRound;
  public final int warmupRuns;
  /** The interpreter's thread count (Interpreter.Options.setNumThreads). */
  public final int numThreads;
  public final DelegateOptions options;
  /** Inputs are drawn from [inputLow, inputHigh]. */
  public final double inputLow;
  public final double inputHigh;
  /** No new round starts after this long (at least one round always runs). */
  public final double maxSeconds;

  public BenchSettings(int runs, int runsPerRound, int warmupRuns, int numThreads,
      DelegateOptions options, double inputLow, double inputHigh, double maxSeconds) {
    if (runs < 1 || runs > MAX_RUNS) throw new IllegalArgumentException("runs must be in [1, " + MAX_RUNS + "]");
    if (runsPerRound < 1) throw new IllegalArgumentException("runs per round must be >= 1");
    if (warmupRuns < 0) throw new IllegalArgumentException("warm-up runs must be >= 0");
    if (numThreads < 1 && numThreads != -1)
      throw new IllegalArgumentException("threads must be a positive integer, or -1");
    if (!(inputLow <= inputHigh)) throw new IllegalArgumentException("input range is empty");
    if (!(maxSeconds > 0)) throw new IllegalArgumentException("max seconds must be > 0");
    this.runs = runs;
    this.runsPerRound = runsPerRound;
    this.warmupRuns = warmupRuns;
    this.numThreads = numThreads;
    this.options = options;
    this.inputLow = inputLow;
    this.inputHigh = inputHigh;
    this.maxSeconds = maxSeconds;
  }

  /**
   * Settings from the screen's text fields (blank means the default).
   *
   * @throws IllegalArgumentException naming the field, or with the library's message for a bad
   *     delegate option
   */
  public static BenchSettings fromText(String runs, String threads, String delegateOptions) {
    int n = intField("runs", runs, DEFAULT_RUNS, 1, MAX_RUNS);
    int t = intField("threads", threads, DEFAULT_THREADS, -1, 1024);
    if (t == 0) throw new IllegalArgumentException("threads: 0 is not a thread count (use -1 for the default)");
    DelegateOptions options = DelegateOptions.parse(delegateOptions);
    String error = options.error();
    if (error != null) throw new IllegalArgumentException(error);
    return new BenchSettings(n, 1, DEFAULT_WARMUP_RUNS, t, options, -1.0, 1.0, DEFAULT_MAX_SECONDS);
  }

  /**
   * The delegate options for {@code config}: the user's, plus {@code plan_file} set to
   * {@code defaultPlanFile} for the fusedelegate-alone configuration unless the user chose one.
   */
  public DelegateOptions optionsFor(Config config, String defaultPlanFile) {
    if (config == Config.FUSEDELEGATE && !options.has("plan_file") && defaultPlanFile != null)
      return options.with("plan_file", defaultPlanFile);
    return options;
  }

  /** Where the fusion plan will be written. */
  public String planFile(String defaultPlanFile) {
    return options.has("plan_file") ? options.get("plan_file") : defaultPlanFile;
  }

  private static int intField(String name, String text, int fallback, int lo, int hi) {
    String t = text == null ? "" : text.trim();
    if (t.isEmpty()) return fallback;
    try {
      int v = Integer.parseInt(t);
      if (v >= lo && v <= hi) return v;
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw new IllegalArgumentException(name + ": '" + t + "' is not an integer in [" + lo + ", " + hi + "]");
  }
}
