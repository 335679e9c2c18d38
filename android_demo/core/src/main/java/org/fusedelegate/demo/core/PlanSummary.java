package org.fusedelegate.demo.core;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The headline of the fusion plan the library writes to {@code plan_file}. */
public final class PlanSummary {
  public final String isa;
  public final int threads;
  public final int nodes;
  public final int claimed;
  public final int partitions;
  /** Intermediate memory traffic the fused programs avoid, per inference. */
  public final long bytesSaved;

  public PlanSummary(String isa, int threads, int nodes, int claimed, int partitions, long bytesSaved) {
    this.isa = isa;
    this.threads = threads;
    this.nodes = nodes;
    this.claimed = claimed;
    this.partitions = partitions;
    this.bytesSaved = bytesSaved;
  }

  /** Reads the plan JSON's "isa", "threads" and "summary" fields; null if one is missing. */
  public static PlanSummary parse(String json) {
    Matcher isa = Pattern.compile("\"isa\"\\s*:\\s*\"([^\"]*)\"").matcher(json);
    Matcher summary = Pattern.compile("\"summary\"\\s*:\\s*\\{([^}]*)\\}").matcher(json);
    if (!isa.find() || !summary.find()) return null;
    Long threads = number(json, "threads");
    Long nodes = number(summary.group(1), "nodes");
    Long claimed = number(summary.group(1), "claimed");
    Long partitions = number(summary.group(1), "partitions");
    Long saved = number(summary.group(1), "bytes_saved");
    if (threads == null || nodes == null || claimed == null || partitions == null || saved == null) return null;
    return new PlanSummary(isa.group(1), threads.intValue(), nodes.intValue(), claimed.intValue(),
        partitions.intValue(), saved);
  }

  private static Long number(String json, String key) {
    Matcher m = Pattern.compile("\"" + key + "\"\\s*:\\s*(-?\\d+)").matcher(json);
    return m.find() ? Long.valueOf(m.group(1)) : null;
  }
}
