package org.fusedelegate.demo.core;

/** The four configurations of {@code fusedelegate bench}, with its names. */
public enum Config {
  BUILTIN("builtin", "builtin", false, false),
  XNNPACK("xnnpack", "xnnpack", true, false),
  FUSEDELEGATE("fusedelegate", "fd", false, true),
  /** fusedelegate first, XNNPACK on what it leaves: what an app gets by default. */
  FUSEDELEGATE_XNNPACK("fusedelegate+xnnpack", "fd+xnnpack", true, true);

  public final String label;
  /** For narrow tables: "fd" stands for fusedelegate. */
  public final String shortLabel;
  public final boolean usesXnnpack;
  public final boolean usesFuseDelegate;

  Config(String label, String shortLabel, boolean usesXnnpack, boolean usesFuseDelegate) {
    this.label = label;
    this.shortLabel = shortLabel;
    this.usesXnnpack = usesXnnpack;
    this.usesFuseDelegate = usesFuseDelegate;
  }
}
