package io.punctual.store;

import static io.punctual.model.RunCondition.ALWAYS;
import static io.punctual.model.RunCondition.ON_FAILURE;
import static io.punctual.model.RunCondition.ON_SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.model.JobState;
import io.punctual.model.RunCondition;
import io.punctual.store.BlockedVerdict.Edge;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class BlockedVerdictTest {
  private final UUID job = UUID.randomUUID();
  private final UUID parent = UUID.randomUUID();
  private final UUID dependency = UUID.randomUUID();

  @Test
  void everyConditionAgainstEveryState() {
    for (RunCondition condition : RunCondition.values()) {
      for (JobState state : JobState.values()) {
        BlockedVerdict verdict =
            BlockedVerdict.of(
                List.of(new Edge(job, parent, condition, true)), Map.of(parent, state));
        boolean holds =
            switch (condition) {
              case ON_SUCCESS -> state == JobState.SUCCEEDED;
              case ON_FAILURE -> state == JobState.FAILED;
              case ALWAYS -> state.isTerminal();
            };
        Class<?> expected =
            !state.isTerminal()
                ? BlockedVerdict.Wait.class
                : holds ? BlockedVerdict.Unblock.class : BlockedVerdict.Skip.class;
        assertThat(verdict).as("%s on %s", condition, state).isInstanceOf(expected);
      }
    }
  }

  @Test
  void oneRuledOutConditionSkipsWithoutWaitingForTheOthers() {
    BlockedVerdict verdict =
        BlockedVerdict.of(
            List.of(
                new Edge(job, dependency, ON_SUCCESS, false), new Edge(job, parent, ALWAYS, true)),
            Map.of(dependency, JobState.CANCELLED, parent, JobState.RUNNING));

    assertThat(verdict)
        .isEqualTo(
            new BlockedVerdict.Skip(
                "required dependency "
                    + dependency
                    + " ended CANCELLED, run condition on_success"));
  }

  @Test
  void theParentIsNamedFirstWhenBothRuleTheJobOut() {
    BlockedVerdict verdict =
        BlockedVerdict.of(
            List.of(
                new Edge(job, dependency, ON_SUCCESS, false),
                new Edge(job, parent, ON_FAILURE, true)),
            Map.of(dependency, JobState.FAILED, parent, JobState.SUCCEEDED));

    assertThat(verdict)
        .isInstanceOfSatisfying(
            BlockedVerdict.Skip.class, s -> assertThat(s.reason()).startsWith("parent " + parent));
  }

  @Test
  void aJobWaitingForAJobThatNoLongerExistsIsSkipped() {
    assertThat(BlockedVerdict.of(List.of(new Edge(job, parent, ALWAYS, true)), Map.of()))
        .isInstanceOfSatisfying(
            BlockedVerdict.Skip.class, s -> assertThat(s.reason()).contains("no longer exists"));
  }

  @Test
  void finalStatesAreTheFourItSays() {
    assertThat(EnumSet.allOf(JobState.class).stream().filter(JobState::isTerminal))
        .containsExactlyInAnyOrder(
            JobState.SUCCEEDED, JobState.FAILED, JobState.CANCELLED, JobState.SKIPPED);
  }
}
