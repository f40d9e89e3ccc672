package io.punctual.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class JobStateTest {

  @Test
  void finalStatesHaveNoWayOutButAnOperatorsRerun() {
    for (JobState terminal :
        new JobState[] {
          JobState.SUCCEEDED, JobState.FAILED, JobState.CANCELLED, JobState.SKIPPED
        }) {
      assertThat(terminal.isTerminal()).isTrue();
      for (JobState target : JobState.values()) {
        // POST /jobs/{id}/retry: a FAILED, CANCELLED or SKIPPED job may run again; nothing else
        // leaves a final state, and a SUCCEEDED job never does.
        boolean rerun = target == JobState.PENDING && terminal != JobState.SUCCEEDED;
        assertThat(terminal.canMoveTo(target)).as("%s -> %s", terminal, target).isEqualTo(rerun);
      }
    }
  }

  @Test
  void pendingMayOnlyBeClaimedOrCancelled() {
    assertThat(JobState.PENDING.canMoveTo(JobState.RUNNING)).isTrue();
    assertThat(JobState.PENDING.canMoveTo(JobState.CANCELLED)).isTrue();
    assertThat(JobState.PENDING.canMoveTo(JobState.SUCCEEDED)).isFalse();
    assertThat(JobState.PENDING.canMoveTo(JobState.FAILED)).isFalse();
  }

  @Test
  void runningMayEndEveryWayOrGoBackToPending() {
    assertThat(JobState.RUNNING.canMoveTo(JobState.SUCCEEDED)).isTrue();
    assertThat(JobState.RUNNING.canMoveTo(JobState.FAILED)).isTrue();
    assertThat(JobState.RUNNING.canMoveTo(JobState.CANCELLED)).isTrue();
    assertThat(JobState.RUNNING.canMoveTo(JobState.PENDING)).isTrue();
    assertThat(JobState.RUNNING.canMoveTo(JobState.RUNNING)).isFalse();
  }

  @Test
  void blockedMayOnlyBeReleasedSkippedOrCancelled() {
    assertThat(JobState.BLOCKED.canMoveTo(JobState.PENDING)).isTrue();
    assertThat(JobState.BLOCKED.canMoveTo(JobState.SKIPPED)).isTrue();
    assertThat(JobState.BLOCKED.canMoveTo(JobState.CANCELLED)).isTrue();
    assertThat(JobState.BLOCKED.canMoveTo(JobState.RUNNING)).isFalse();
    assertThat(JobState.PENDING.canMoveTo(JobState.SKIPPED)).isFalse();
    assertThat(JobState.initial(true)).isEqualTo(JobState.BLOCKED);
    assertThat(JobState.initial(false)).isEqualTo(JobState.PENDING);
  }

  @Test
  void completionRefusesAnImpossibleNextState() {
    assertThatThrownBy(
            () ->
                new Completion(
                    JobId.forScheduledTime(java.time.Instant.now()),
                    1,
                    JobState.RUNNING,
                    null,
                    ExecutionStatus.SUCCEEDED,
                    java.time.Instant.now(),
                    1,
                    null,
                    null,
                    null,
                    List.of()))
        .isInstanceOf(IllegalStateTransitionException.class);
  }
}
