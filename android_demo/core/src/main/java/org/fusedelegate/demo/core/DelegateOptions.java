package org.fusedelegate.demo.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * fusedelegate options: string keys and values, in order, as the library takes them.
 *
 * <p>The text form is the one of {@code fusedelegate bench --delegate_options} and
 * benchmark_model's {@code --external_delegate_options}: {@code "key:value;key:value"}.
 * {@link #error()} checks keys and values with the library's own rules and messages
 * (delegate/frontends/options.cc); only whether this CPU runs a given {@code isa} is left to the library.
 */
public final class DelegateOptions {
  /** Every key the library accepts, in its order. */
  public static final List<String> KEYS = Collections.unmodifiableList(Arrays.asList(
      "num_threads", "isa", "fusions", "min_nodes_per_partition", "log", "plan_file", "profile_file"));

  static final List<String> ISAS = Arrays.asList("auto", "scalar", "avx2", "avx512", "neon");
  static final List<String> FUSION_FAMILIES =
      Arrays.asList("all", "elementwise", "fully_connected", "conv", "transformer", "int8_conv");

  private static final DelegateOptions EMPTY = new DelegateOptions(new LinkedHashMap<String, String>());

  private final Map<String, String> map;

  private DelegateOptions(LinkedHashMap<String, String> map) {
    this.map = Collections.unmodifiableMap(map);
  }

  public static DelegateOptions empty() {
    return EMPTY;
  }

  /**
   * Parses {@code "k:v;k:v"} as the Python CLI does: empty items are skipped, each item splits
   * at its first ':', key and value are stripped of whitespace, a repeated key keeps the last value.
   *
   * @throws IllegalArgumentException for an item without ':'
   */
  public static DelegateOptions parse(String text) {
    LinkedHashMap<String, String> map = new LinkedHashMap<>();
    if (text != null) {
      for (String item : text.split(";", -1)) {
        if (item.isEmpty()) continue;
        int colon = item.indexOf(':');
        if (colon < 0) throw new IllegalArgumentException("delegate options: '" + item + "' is not key:value");
        map.put(strip(item.substring(0, colon)), strip(item.substring(colon + 1)));
      }
    }
    return new DelegateOptions(map);
  }

  /** Options from a map; values become text as in Python's {@code fusedelegate.load(**kw)}. */
  public static DelegateOptions of(Map<String, ?> options) {
    LinkedHashMap<String, String> map = new LinkedHashMap<>();
    for (Map.Entry<String, ?> e : options.entrySet()) map.put(e.getKey(), valueText(e.getValue()));
    return new DelegateOptions(map);
  }

  /** These options with {@code key} set (replaced in place if present, else appended). */
  public DelegateOptions with(String key, Object value) {
    LinkedHashMap<String, String> map = new LinkedHashMap<>(this.map);
    map.put(key, valueText(value));
    return new DelegateOptions(map);
  }

  public boolean isEmpty() {
    return map.isEmpty();
  }

  public boolean has(String key) {
    return map.containsKey(key);
  }

  /** The value of {@code key}, or null. */
  public String get(String key) {
    return map.get(key);
  }

  public Map<String, String> asMap() {
    return map;
  }

  public String[] keys() {
    return map.keySet().toArray(new String[0]);
  }

  public String[] values() {
    return map.values().toArray(new String[0]);
  }

  /**
   * Null when the library would accept these options (up to the CPU having the {@code isa}
   * asked for), else the library's message, naming the key and the accepted values.
   */
  public String error() {
    for (Map.Entry<String, String> e : map.entrySet()) {
      String problem = valueError(e.getKey(), e.getValue());
      if (problem != null) return problem;
    }
    return null;
  }

  /** {@code "k:v;k:v"}, which {@link #parse} reads back. */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder();
    for (Map.Entry<String, String> e : map.entrySet()) {
      if (s.length() > 0) s.append(';');
      s.append(e.getKey()).append(':').append(e.getValue());
    }
    return s.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DelegateOptions && map.equals(((DelegateOptions) o).map);
  }

  @Override
  public int hashCode() {
    return map.hashCode();
  }

  private static String valueError(String key, String value) {
    switch (key) {
      case "num_threads": {
        Long n = CInt.parse(value);
        if (n == null || n < -1 || n > 1024 || n == 0)
          return badValue(key, value, "a positive integer, or -1 for the interpreter's thread count");
        return null;
      }
      case "isa":
        return ISAS.contains(value) ? null : badValue(key, value, String.join(", ", ISAS));
      case "fusions":
        if (value.equals("none")) return null;
        for (String family : value.split(",", -1))
          if (!FUSION_FAMILIES.contains(family))
            return badValue(key, value,
                "all, none, or a comma list of: elementwise, fully_connected, conv, transformer, int8_conv");
        return null;
      case "min_nodes_per_partition": {
        Long n = CInt.parse(value);
        return n == null || n < 1 || n > (1 << 20) ? badValue(key, value, "an integer >= 1") : null;
      }
      case "log":
        return Arrays.asList("quiet", "info", "verbose").contains(value)
            ? null : badValue(key, value, "quiet, info, verbose");
      case "plan_file":
      case "profile_file":
        return value.isEmpty() ? badValue(key, value, "a file path") : null;
      default:
        return "fusedelegate: unknown option '" + key + "'; accepted options: " + String.join(", ", KEYS);
    }
  }

  private static String badValue(String key, String value, String accepted) {
    return "fusedelegate: option '" + key + "' has bad value '" + value + "'; accepted: " + accepted;
  }

  /** Python's str(): booleans as true/false, lists and arrays joined with ','. */
  static String valueText(Object value) {
    if (value instanceof Collection) {
      List<String> parts = new ArrayList<>();
      for (Object v : (Collection<?>) value) parts.add(String.valueOf(v));
      return String.join(",", parts);
    }
    if (value instanceof Object[]) return valueText(Arrays.asList((Object[]) value));
    return String.valueOf(value);
  }

  private static String strip(String s) {
    int begin = 0;
    int end = s.length();
    while (begin < end && Character.isWhitespace(s.charAt(begin))) begin++;
    while (end > begin && Character.isWhitespace(s.charAt(end - 1))) end--;
    return s.substring(begin, end);
  }

  /** Integers as the library reads them (options.cc): an optional sign, then decimal digits, nothing else. */
  static final class CInt {
    private CInt() {}

    /** The value, or null for any other text or one past a long. */
    static Long parse(String s) {
      int i = 0;
      boolean negative = false;
      if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) negative = s.charAt(i++) == '-';
      if (i == s.length()) return null;
      long v = 0;
      for (; i < s.length(); i++) {
        char c = s.charAt(i);
        if (c < '0' || c > '9') return null;
        if (v > (Long.MAX_VALUE - (c - '0')) / 10) return null;  // strtol: ERANGE
        v = v * 10 + (c - '0');
      }
      return negative ? -v : v;
    }
  }
}
