package io.punctual.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class FinishPlansTest {
  /** A finish plan as auto_explain logs it (PostgreSQL 18), trimmed to the nodes that matter. */
  private static final String PLAN =
      String.join(
          "\n",
          "2026-12-01 10:46:43.105 UTC [9348] LOG:  duration: 10.000 ms  plan:",
          "\tQuery Text: WITH v AS (SELECT * FROM unnest($1)) SELECT id FROM applied",
          "\tCTE Scan on applied  (cost=486.62..486.64 rows=1 width=16) (actual"
              + " time=1.461..5.291 rows=500.00 loops=1)",
          "\t  CTE succeeded_unwritten",
          "\t    ->  Update on jobs j  (cost=0.52..187.02 rows=1 width=306) (actual"
              + " time=1.458..5.000 rows=500.00 loops=1)",
          "\t          Update on jobs_p20261201 j_2",
          "\t          Buffers: shared hit=4548",
          "\t          ->  Hash Join  (cost=0.52..187.02 rows=1 width=306) (actual"
              + " time=0.773..1.000 rows=500.00 loops=1)",
          "\t                ->  Append  (cost=0.14..186.22 rows=16 width=70) (actual"
              + " time=0.207..0.580 rows=500.00 loops=1)",
          "\t  CTE recorded",
          "\t    ->  Insert on job_executions  (cost=0.52..186.99 rows=0 width=0) (actual"
              + " time=3.500..3.500 rows=0.00 loops=1)",
          "\t          Conflict Resolution: NOTHING",
          "\t          ->  Hash Join  (cost=0.52..186.99 rows=1 width=244) (actual"
              + " time=0.364..0.500 rows=500.00 loops=1)");

  @Test
  void aFinishPlanIsSplitIntoItsPartsPerRowOfTheUpdate() {
    double[] parts = FinishPlans.parts(PLAN);

    assertThat(parts).isNotNull();
    // 10 ms, 5 ms, 1 ms, 3.5 ms and 0.5 ms over the UPDATE's 500 rows, in microseconds
    assertThat(parts[0]).isCloseTo(20.0, within(1e-9));
    assertThat(parts[1]).isCloseTo(10.0, within(1e-9));
    assertThat(parts[2]).isCloseTo(2.0, within(1e-9));
    assertThat(parts[3]).isCloseTo(7.0, within(1e-9));
    assertThat(parts[4]).isCloseTo(1.0, within(1e-9));
  }

  @Test
  void aBlockThatIsNotAWholeFinishPlanGivesNothing() {
    assertThat(FinishPlans.parts("2026-12-01 LOG:  checkpoint starting: time")).isNull();
    assertThat(
            FinishPlans.parts(
                "LOG:  duration: 1.000 ms  plan:\n\t->  Update on jobs j  (actual"
                    + " time=0.1..0.2 rows=0.00 loops=1)"))
        .isNull();
  }
}
