package io.punctual.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.model.Completion;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.JobState;
import io.punctual.store.FinishStatement.Group;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class FinishStatementTest {
  private final Instant at = Instant.now().truncatedTo(ChronoUnit.MILLIS);

  @Test
  void aBatchHasTheGroupsOfItsAttemptsAndACancelledOneIsInNone() {
    UUID a = UUID.randomUUID();
    UUID b = UUID.randomUUID();
    UUID c = UUID.randomUUID();
    List<Completion> batch =
        List.of(
            completion(a, JobState.SUCCEEDED, ExecutionStatus.SUCCEEDED),
            completion(b, JobState.FAILED, ExecutionStatus.FAILED),
            completion(c, JobState.CANCELLED, ExecutionStatus.CANCELLED));

    assertThat(FinishStatement.groupsOf(batch, Set.of()))
        .containsExactlyInAnyOrder(Group.SUCCEEDED, Group.FAILED);
    assertThat(FinishStatement.groupsOf(batch, Set.of(a, c)))
        .containsExactlyInAnyOrder(Group.SUCCEEDED_UNWRITTEN, Group.FAILED);
    assertThat(FinishStatement.groupsOf(batch.subList(2, 3), Set.of())).isEmpty();
  }

  @Test
  void theStatementHasTheUpdateOfEachGroupGivenAndNoOther() {
    String one = FinishStatement.sql(EnumSet.of(Group.SUCCEEDED_UNWRITTEN));
    assertThat(one)
        .contains("succeeded_unwritten AS (")
        .contains(":succeedUnwrittenIds")
        .contains("applied AS (\n    SELECT id FROM succeeded_unwritten\n)")
        .doesNotContain(":succeedIds")
        .doesNotContain(":retryIds")
        .doesNotContain(":failUnwrittenIds")
        .doesNotContain("/* updates */")
        .doesNotContain("/* applied */");
    assertThat(countOf(one, "UPDATE jobs")).isEqualTo(1);

    String all = FinishStatement.sql(EnumSet.allOf(Group.class));
    assertThat(countOf(all, "UPDATE jobs")).isEqualTo(6);
    assertThat(countOf(all, " UNION ALL ")).isEqualTo(5);

    String none = FinishStatement.sql(EnumSet.noneOf(Group.class));
    assertThat(none)
        .doesNotContain("UPDATE jobs")
        .contains("SELECT CAST(NULL AS uuid) AS id WHERE false")
        .contains("INSERT INTO job_executions");
    assertThat(FinishStatement.sql(Set.of(Group.SUCCEEDED_UNWRITTEN))).isSameAs(one);
  }

  private static int countOf(String text, String part) {
    return text.split(java.util.regex.Pattern.quote(part), -1).length - 1;
  }

  private Completion completion(UUID id, JobState next, ExecutionStatus status) {
    return new Completion(id, 1, next, null, status, at, 5, null, null, null, List.of());
  }
}
