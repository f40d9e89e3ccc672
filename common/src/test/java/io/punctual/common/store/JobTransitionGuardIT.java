package io.punctual.common.store;

import static io.punctual.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.punctual.common.job.Job;
import io.punctual.common.job.JobState;
import io.punctual.testing.TestStack;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The trigger of R__job_transition_guard.sql refuses exactly the moves JobState does not have. */
class JobTransitionGuardIT {
  private final TestStack stack = new TestStack();
  private final Jdbi jdbi = stack.database.jdbi();

  @AfterEach
  void close() {
    stack.close();
  }

  @Test
  void postgresAllowsExactlyTheMovesOfTheJavaTable() {
    Job job = stack.submissions.submit(List.of(aJob().build())).get(0).job();
    Set<String> allowedByPostgres = new java.util.TreeSet<>();
    Set<String> allowedByJava = new java.util.TreeSet<>();
    for (JobState from : JobState.values()) {
      for (JobState to : EnumSet.complementOf(EnumSet.of(from))) {
        if (from.canMoveTo(to)) {
          allowedByJava.add(from + " -> " + to);
        }
        if (postgresAllows(job, from, to)) {
          allowedByPostgres.add(from + " -> " + to);
        }
      }
    }
    assertThat(allowedByPostgres).hasSize(9).isEqualTo(allowedByJava);
  }

  @Test
  void anIllegalUpdateIsRefusedAndChangesNothing() {
    Job job = stack.submissions.submit(List.of(aJob().build())).get(0).job();
    assertThatThrownBy(
            () ->
                jdbi.useHandle(
                    h ->
                        h.createUpdate(
                                "UPDATE jobs SET status = 'SUCCEEDED', finished_at = now()"
                                    + " WHERE id = :id")
                            .bind("id", job.id())
                            .execute()))
        .hasMessageContaining("no transition leads from PENDING to SUCCEEDED");
    assertThat(stack.queries.find(job.namespace(), job.id()).orElseThrow().status())
        .isEqualTo(JobState.PENDING);
  }

  /**
   * Whether PostgreSQL lets {@code job}'s status go from {@code from} to {@code to}: the job is put
   * in {@code from} with triggers off (session_replication_role), then moved, all rolled back.
   */
  private boolean postgresAllows(Job job, JobState from, JobState to) {
    try (Handle h = jdbi.open()) {
      h.begin();
      try {
        h.execute("SET LOCAL session_replication_role = replica");
        move(h, job, from);
        h.execute("SET LOCAL session_replication_role = origin");
        try {
          move(h, job, to);
          return true;
        } catch (RuntimeException refused) {
          assertThat(refused)
              .hasMessageContaining("no transition leads from " + from + " to " + to);
          return false;
        }
      } finally {
        h.rollback();
      }
    }
  }

  private static void move(Handle h, Job job, JobState to) {
    h.createUpdate(
            "UPDATE jobs SET status = :to,"
                + " finished_at = CASE WHEN :terminal THEN now() END,"
                + " attempt = CASE WHEN :to = 'PENDING' OR :to = 'BLOCKED' THEN 0 ELSE 1 END"
                + " WHERE id = :id")
        .bind("to", to.name())
        .bind("terminal", to.isTerminal())
        .bind("id", job.id())
        .execute();
  }
}
