package org.fusedelegate;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.junit.Assume.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fusedelegate.demo.core.DelegateOptions;
import org.fusedelegate.demo.core.PlanSummary;
import org.junit.Test;
import org.tensorflow.lite.Delegate;

/**
 * The app's FuseDelegate and JNI bridge against the library built from the app's CMakeLists.txt
 * for this host (run by scripts/android_test.sh with -Djava.library.path).
 */
public class FuseDelegateHostTest {
  /** Option texts, good and bad, that the library and the core's checker must judge alike. */
  private static final List<String> CASES = Arrays.asList(
      "", "fusions:all;num_threads:2", "num_threads:-1", "num_threads:0", "num_threads: 3", "num_threads:+4",
      "num_threads:1025", "num_threads:3x", "num_threads:99999999999999999999", "isa:auto", "isa:scalar",
      "isa:sse4", "fusions:none", "fusions:elementwise,conv", "fusions:elementwise,", "fusions:all,none",
      "fusions:", "min_nodes_per_partition:1", "min_nodes_per_partition:0", "log:verbose", "log:loud",
      "plan_file:", "plan_file:/tmp/plan \u00e9\u4e2d.json", "profile_file:x.json", "threads:2", ":1",
      "log:info;isa:nope;fusions:bad");

  private static String nativeError(DelegateOptions options) {
    try (FuseDelegate d = new FuseDelegate(options)) {
      assertNotEquals(0, d.getNativeHandle());
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  @Test
  public void coreCheckerAgreesWithTheLibrary() {
    for (String text : CASES) {
      DelegateOptions options = DelegateOptions.parse(text);
      assertEquals(text, options.error(), nativeError(options));
    }
  }

  @Test
  public void isaTheCpuLacksIsRefusedByTheLibraryOnly() {
    List<String> here = Arrays.asList(FuseDelegate.availableIsas());
    assertEquals("scalar", here.get(0));
    for (String isa : Arrays.asList("scalar", "avx2", "avx512", "neon")) {
      DelegateOptions options = DelegateOptions.parse("isa:" + isa);
      assertNull(options.error());
      String error = nativeError(options);
      if (here.contains(isa)) {
        assertNull(isa, error);
      } else {
        assertTrue(error, error.startsWith("fusedelegate: option 'isa' asks for '" + isa + "'"));
        assertTrue(error, error.contains("available here: " + String.join(", ", here)));
      }
    }
  }

  @Test
  public void closeIsIdempotentAndEndsTheHandle() {
    FuseDelegate d = new FuseDelegate("log:quiet");
    Delegate asTflite = d;
    assertNotEquals(0, asTflite.getNativeHandle());
    asTflite.close();
    d.close();
    try {
      d.getNativeHandle();
      fail();
    } catch (IllegalStateException expected) {
      assertTrue(expected.getMessage().contains("closed"));
    }
  }

  @Test
  public void everyConstructorReachesTheLibrary() {
    Map<String, Object> options = new LinkedHashMap<>();
    options.put("num_threads", 2);
    options.put("fusions", Arrays.asList("elementwise", "conv"));
    try (FuseDelegate a = new FuseDelegate(); FuseDelegate b = new FuseDelegate(options);
        FuseDelegate c = new FuseDelegate("fusions:all")) {
      assertNotEquals(a.getNativeHandle(), b.getNativeHandle());
      assertNotEquals(b.getNativeHandle(), c.getNativeHandle());
    }
    try {
      new FuseDelegate(java.util.Collections.singletonMap("fusions", Arrays.asList("elementwise", "gemm")));
      fail();
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("'elementwise,gemm'"));
    }
  }

  @Test
  public void manyDelegatesComeAndGo() {
    for (int i = 0; i < 1000; i++) new FuseDelegate("num_threads:2").close();
  }

  /** The plan this library wrote for the bundled model (scripts/android_test.sh, step 4). */
  @Test
  public void coreReadsTheLibrarysPlan() throws IOException {
    String path = System.getProperty("fusedelegate.planFile", "");
    assumeTrue("no plan file: the TFLite step did not run", new File(path).isFile());
    PlanSummary plan = PlanSummary.parse(new String(Files.readAllBytes(new File(path).toPath()),
        StandardCharsets.UTF_8));
    assertTrue(plan != null);
    assertTrue(Arrays.asList(FuseDelegate.availableIsas()).contains(plan.isa));
    assertTrue(plan.claimed > 0 && plan.claimed <= plan.nodes);
    assertTrue(plan.partitions > 0 && plan.bytesSaved > 0);
  }
}
