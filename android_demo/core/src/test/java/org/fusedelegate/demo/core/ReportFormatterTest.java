package org.fusedelegate.demo.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import org.junit.Test;

public class ReportFormatterTest {
  private static BenchResult result() throws Exception {
    final double[] ms = {0.5, 0.3, 0.2, 0.1};
    InferenceSession.Factory factory = config -> new InferenceSession() {
      @Override
      public double run() {
        return ms[config.ordinal()];
      }

      @Override
      public float[][] outputs() {
        return new float[][] {{config.usesFuseDelegate ? 1.0000001f : 1f}};
      }

      @Override
      public void close() {}
    };
    BenchSettings settings = BenchSettings.fromText("20", "2", "fusions:all");
    return new Benchmark().run(factory, Arrays.asList(Config.values()), settings, (s, d, t) -> {});
  }

  @Test
  public void showsLatencySpeedUpAndErrors() throws Exception {
    String text = ReportFormatter.format("default_model.tflite", result(),
        new PlanSummary("avx512", 2, 15, 12, 1, 1024));
    assertTrue(text, text.startsWith("model default_model.tflite\n2 threads | 20 rounds x 1 run | warm-up 5\n"));
    assertTrue(text, text.contains("fusedelegate options: fusions:all\n"));
    assertTrue(text, text.contains("fusedelegate: avx512, 12 of 15 nodes in 1 partition\n"));
    assertTrue(text, text.contains("\nlatency ms    median    mean     p90     min     std\n"));
    assertTrue(text, text.contains("\nbuiltin        0.500   0.500   0.500   0.500   0.000\n"));
    assertTrue(text, text.contains("\nspeed-up vs   builtin  xnnpack    max abs    max rel\n"));
    assertTrue(text, text.contains("\nbuiltin         1.00x    0.60x          0          0\n"));
    assertTrue(text, text.contains("\nfd              2.50x    1.50x   1.19e-07   1.19e-07\n"));
    assertTrue(text, text.contains("\nfd+xnnpack      5.00x    3.00x   1.19e-07   1.19e-07\n"));
    assertTrue(text, text.contains("against builtin, same inputs."));
  }

  @Test
  public void tablesFitAPhone() throws Exception {
    String text = ReportFormatter.format("m", result(), null);
    for (String line : text.split("\n")) assertTrue(line, line.length() <= ReportFormatter.WIDTH);
    assertTrue(text.contains("fusedelegate options: fusions:all\n\nlatency ms"));
  }

  @Test
  public void numbersKeepTheirColumns() {
    assertEquals("0.123", ReportFormatter.ms(0.12345));
    assertEquals("123.46", ReportFormatter.ms(123.456));
    assertEquals("1234.6", ReportFormatter.ms(1234.56));
    assertEquals("12346", ReportFormatter.ms(12345.6));
    assertEquals("-", ReportFormatter.speedUp(null));
    assertEquals("NaN", ReportFormatter.error(Double.NaN));
    assertEquals("0", ReportFormatter.error(0));
  }
}
