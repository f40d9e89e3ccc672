package io.punctual.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class JobStateTest {

  @Test
  void aStateCanMoveToExactlyTheTargetsOfItsNamedTransitions() {
    for (JobState from : JobState.values()) {
      for (JobState to : JobState.values()) {
        boolean named = false;
        for (JobState.Transition t : JobState.Transition.values()) {
          named |= t.from() == from && t.to() == to;
        }
        assertThat(from.canMoveTo(to)).as("%s -> %s", from, to).isEqualTo(named);
      }
    }
  }

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
  void pendingMayBeClaimedCancelledOrEndedThroughAClaimNeverWritten() {
    assertThat(JobState.PENDING.canMoveTo(JobState.RUNNING)).isTrue();
    assertThat(JobState.PENDING.canMoveTo(JobState.CANCELLED)).isTrue();
    // Only the ends of an attempt whose claim was read but not written (worker.claimWriteAfter)
    // move a PENDING row straight to an end: SUCCEED_UNWRITTEN, RETRY_UNWRITTEN, FAIL_UNWRITTEN.
    List<JobState.Transition> fromPendingToAnEnd = new ArrayList<>();
    for (JobState.Transition t : JobState.Transition.values()) {
      if (t.from() == JobState.PENDING
          && t.to() != JobState.RUNNING
          && t.to() != JobState.CANCELLED) {
        fromPendingToAnEnd.add(t);
      }
    }
    assertThat(fromPendingToAnEnd)
        .containsExactly(
            JobState.Transition.SUCCEED_UNWRITTEN,
            JobState.Transition.RETRY_UNWRITTEN,
            JobState.Transition.FAIL_UNWRITTEN);
    assertThat(JobState.PENDING.canMoveTo(JobState.SKIPPED)).isFalse();
    assertThat(JobState.PENDING.canMoveTo(JobState.BLOCKED)).isFalse();
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
