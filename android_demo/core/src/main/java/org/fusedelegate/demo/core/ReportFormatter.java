package org.fusedelegate.demo.core;

import java.util.Locale;

/** The result as monospaced text; its tables are at most {@link #WIDTH} columns, for a phone held upright. */
public final class ReportFormatter {
  public static final int WIDTH = 52;

  private ReportFormatter() {}

  /**
   * @param model the model's name, as shown to the user
   * @param plan the delegate's plan summary, or null if unknown
   */
  public static String format(String model, BenchResult result, PlanSummary plan) {
    BenchSettings s = result.settings;
    StringBuilder out = new StringBuilder();
    line(out, "model %s", model);
    line(out, "%s thread%s | %d round%s x %d run%s | warm-up %d",
        s.numThreads == -1 ? "default" : String.valueOf(s.numThreads), s.numThreads == 1 ? "" : "s",
        result.rounds, result.rounds == 1 ? "" : "s", s.runsPerRound, s.runsPerRound == 1 ? "" : "s",
        s.warmupRuns);
    line(out, "fusedelegate options: %s", s.options.isEmpty() ? "(defaults)" : s.options.toString());
    if (plan != null)
      line(out, "fusedelegate: %s, %d of %d nodes in %d partition%s", plan.isa, plan.claimed, plan.nodes,
          plan.partitions, plan.partitions == 1 ? "" : "s");

    out.append('\n');
    line(out, "%-12s%8s%8s%8s%8s%8s", "latency ms", "median", "mean", "p90", "min", "std");
    for (BenchResult.ConfigResult c : result.configs) {
      LatencyStats l = c.latency;
      line(out, "%-12s%8s%8s%8s%8s%8s", c.config.shortLabel, ms(l.median), ms(l.mean), ms(l.p90), ms(l.min),
          ms(l.std));
    }

    out.append('\n');
    line(out, "%-12s%9s%9s%11s%11s", "speed-up vs", "builtin", "xnnpack", "max abs", "max rel");
    for (BenchResult.ConfigResult c : result.configs) {
      Accuracy a = c.worstAccuracy();
      line(out, "%-12s%9s%9s%11s%11s", c.config.shortLabel, speedUp(c.speedUpVs(Config.BUILTIN)),
          speedUp(c.speedUpVs(Config.XNNPACK)), error(a.maxAbs), error(a.maxRel));
    }

    out.append('\n');
    line(out, "%-12s%8s%8s", "start ms", "init", "first");
    for (BenchResult.ConfigResult c : result.configs)
      line(out, "%-12s%8s%8s", c.config.shortLabel, ms(c.initMs), ms(c.firstInferenceMs));

    out.append('\n');
    out.append("fd: fusedelegate. speed-up: median of per-round\n")
        .append("paired ratios, above 1x is faster. Errors: max\n")
        .append("over outputs against ").append(result.reference.label).append(", same inputs.\n");
    return out.toString();
  }

  static String ms(double v) {
    if (Double.isNaN(v)) return "-";
    if (v >= 10000) return String.format(Locale.ROOT, "%.0f", v);
    if (v >= 1000) return String.format(Locale.ROOT, "%.1f", v);
    if (v >= 100) return String.format(Locale.ROOT, "%.2f", v);
    return String.format(Locale.ROOT, "%.3f", v);
  }

  static String speedUp(Double v) {
    return v == null ? "-" : String.format(Locale.ROOT, "%.2fx", v);
  }

  static String error(double v) {
    if (Double.isNaN(v)) return "NaN";
    return v == 0 ? "0" : String.format(Locale.ROOT, "%.2e", v);
  }

  private static void line(StringBuilder out, String format, Object... args) {
    out.append(String.format(Locale.ROOT, format, args)).append('\n');
  }
}
