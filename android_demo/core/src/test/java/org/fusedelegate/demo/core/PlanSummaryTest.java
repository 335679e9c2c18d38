package org.fusedelegate.demo.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import org.junit.Test;

public class PlanSummaryTest {
  // The shape delegate/runtime/report.cc writes (abridged).
  private static final String PLAN = "{\n \"isa\": \"neon\",\n \"threads\": 2,\n \"nodes\": [\n"
      + "  {\"id\": 0, \"op\": \"ADD\", \"inputs\": [0, 1], \"outputs\": [2], \"partition\": 0, \"reason\": \"\"}\n"
      + " ],\n \"tensors\": {\n  \"0\": {\"shape\": [1, 8], \"float32\": true, \"constant\": false}\n },\n"
      + " \"partitions\": [\n  {\"nodes\": [0, 1], \"groups\": [\n   {\"nodes\": [0, 1], \"bytes_saved\": 64}\n"
      + "  ], \"bytes_saved\": 64}\n ],\n"
      + " \"summary\": {\"nodes\": 3, \"claimed\": 2, \"partitions\": 1, \"bytes_saved\": 4294967296}\n}\n";

  @Test
  public void readsTheHeadline() {
    PlanSummary p = PlanSummary.parse(PLAN);
    assertEquals("neon", p.isa);
    assertEquals(2, p.threads);
    assertEquals(3, p.nodes);
    assertEquals(2, p.claimed);
    assertEquals(1, p.partitions);
    assertEquals(4294967296L, p.bytesSaved);
  }

  @Test
  public void incompletePlanGivesNull() {
    assertNull(PlanSummary.parse("{\"isa\": \"avx2\"}"));
    assertNull(PlanSummary.parse(PLAN.replace("\"claimed\": 2, ", "")));
    assertNull(PlanSummary.parse(""));
  }
}
