package org.fusedelegate.demo.core;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.Test;

public class DelegateOptionsTest {
  private static String errorOf(String text) {
    return DelegateOptions.parse(text).error();
  }

  @Test
  public void parsesThePythonSyntax() {
    DelegateOptions o = DelegateOptions.parse(" fusions : all ;num_threads:2;;");
    assertArrayEquals(new String[] {"fusions", "num_threads"}, o.keys());
    assertArrayEquals(new String[] {"all", "2"}, o.values());
    assertEquals("fusions:all;num_threads:2", o.toString());
  }

  @Test
  public void emptyAndNullTextGiveNoOptions() {
    assertTrue(DelegateOptions.parse("").isEmpty());
    assertTrue(DelegateOptions.parse(null).isEmpty());
    assertTrue(DelegateOptions.parse(";;").isEmpty());
    assertNull(DelegateOptions.empty().error());
  }

  @Test
  public void valueKeepsEverythingAfterTheFirstColon() {
    assertEquals("C:/plans/p.json", DelegateOptions.parse("plan_file:C:/plans/p.json").get("plan_file"));
  }

  @Test
  public void repeatedKeyKeepsItsPlaceAndTheLastValue() {
    DelegateOptions o = DelegateOptions.parse("log:info;isa:auto;log:verbose");
    assertEquals("log:verbose;isa:auto", o.toString());
  }

  @Test
  public void itemWithoutColonIsRejected() {
    try {
      DelegateOptions.parse("fusions:all;num_threads");
      fail();
    } catch (IllegalArgumentException e) {
      assertEquals("delegate options: 'num_threads' is not key:value", e.getMessage());
    }
  }

  @Test
  public void toStringParsesBack() {
    DelegateOptions o = DelegateOptions.parse("isa:scalar;min_nodes_per_partition:3;profile_file:/tmp/x.json");
    assertEquals(o, DelegateOptions.parse(o.toString()));
  }

  @Test
  public void acceptsWhatTheLibraryAccepts() {
    for (String ok : Arrays.asList("num_threads:-1", "num_threads:1", "num_threads:1024", "num_threads: 7",
        "isa:auto", "isa:scalar", "isa:avx2", "isa:avx512", "isa:neon", "fusions:all", "fusions:none",
        "fusions:elementwise", "fusions:elementwise,conv", "fusions:all,fully_connected",
        "min_nodes_per_partition:1", "min_nodes_per_partition:1048576", "log:quiet", "log:info",
        "log:verbose", "plan_file:/sdcard/p.json", "profile_file:x"))
      assertNull(ok, errorOf(ok));
  }

  @Test
  public void numThreadsIsAPlainInteger() {
    assertNull(DelegateOptions.of(single("num_threads", "+3")).error());
    for (String bad : Arrays.asList("0", "-0", "-2", "1025", "", "3 ", " 3", "\t+3", "0x10", "1.5", "+", "-",
        "99999999999999999999", "two"))
      assertEquals(bad,
          "fusedelegate: option 'num_threads' has bad value '" + bad
              + "'; accepted: a positive integer, or -1 for the interpreter's thread count",
          DelegateOptions.of(single("num_threads", bad)).error());
  }

  @Test
  public void badValuesGetTheLibraryMessages() {
    assertEquals("fusedelegate: option 'isa' has bad value 'sse'; accepted: auto, scalar, avx2, avx512, neon",
        errorOf("isa:sse"));
    assertEquals("fusedelegate: option 'fusions' has bad value 'elementwise,'; accepted: all, none, or a comma "
        + "list of: elementwise, fully_connected, conv, transformer, int8_conv", errorOf("fusions:elementwise,"));
    assertEquals("fusedelegate: option 'fusions' has bad value 'all,none'; accepted: all, none, or a comma "
        + "list of: elementwise, fully_connected, conv, transformer, int8_conv", errorOf("fusions:all,none"));
    assertEquals("fusedelegate: option 'min_nodes_per_partition' has bad value '0'; accepted: an integer >= 1",
        errorOf("min_nodes_per_partition:0"));
    assertEquals("fusedelegate: option 'log' has bad value 'debug'; accepted: quiet, info, verbose",
        errorOf("log:debug"));
    assertEquals("fusedelegate: option 'plan_file' has bad value ''; accepted: a file path", errorOf("plan_file:"));
  }

  @Test
  public void unknownKeyListsTheAcceptedOnes() {
    assertEquals("fusedelegate: unknown option 'threads'; accepted options: num_threads, isa, fusions, "
        + "min_nodes_per_partition, log, plan_file, profile_file", errorOf("threads:2"));
  }

  @Test
  public void firstProblemInOrderIsReported() {
    assertEquals("fusedelegate: option 'log' has bad value 'x'; accepted: quiet, info, verbose",
        errorOf("log:x;isa:y"));
  }

  @Test
  public void valuesBecomeTextAsInPython() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("num_threads", 2);
    m.put("fusions", Arrays.asList("elementwise", "conv"));
    m.put("flag", true);
    m.put("isas", new String[] {"a", "b"});
    assertEquals("num_threads:2;fusions:elementwise,conv;flag:true;isas:a,b", DelegateOptions.of(m).toString());
  }

  @Test
  public void withReplacesInPlaceOrAppends() {
    DelegateOptions o = DelegateOptions.parse("log:info;isa:auto");
    assertEquals("log:verbose;isa:auto", o.with("log", "verbose").toString());
    assertEquals("log:info;isa:auto;num_threads:4", o.with("num_threads", 4).toString());
    assertEquals("log:info;isa:auto", o.toString());
    assertFalse(o.has("num_threads"));
  }

  private static Map<String, String> single(String key, String value) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(key, value);
    return m;
  }
}
