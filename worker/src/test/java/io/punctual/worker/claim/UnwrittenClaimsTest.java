package io.punctual.worker.claim;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.model.Job;
import io.punctual.store.JobTransitions.Attempt;
import io.punctual.worker.run.TestJobs;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@link UnwrittenClaims} tells attempts of one job apart: a worker that wakes from a pause may
 * claim a rescued job again while its earlier attempt's handler is still ending here. That end must
 * neither take nor finish the new attempt's unwritten claim (FaultInjectionE2E, 2026-11-30: it did,
 * the new claim was never written, and its number was recorded twice).
 */
class UnwrittenClaimsTest {
  private final UnwrittenClaims claims = new UnwrittenClaims(() -> 0L);
  private final Job first = TestJobs.running("noop", "{}", 1, 3);
  private final UUID id = first.id();

  private Job attempt(int n) {
    return TestJobs.withAttempt(first, n);
  }

  @Test
  void anEarlierAttemptsEndLeavesTheNewAttemptsClaimAlone() {
    claims.add(List.of(attempt(2)), 0);

    claims.ended(id, 1);
    assertThat(claims.takeForFinish(List.of(new Attempt(id, 1)))).isEmpty();
    claims.finished(List.of(new Attempt(id, 1)));

    assertThat(claims.isUnwritten(id, 2)).isTrue();
    assertThat(claims.isUnwritten(id, 1)).isFalse();
    assertThat(claims.takeDue(0)).as("still written by the claim writer").hasSize(1);
  }

  @Test
  void itsOwnEndTakesAndFinishesIt() {
    claims.add(List.of(attempt(2)), 0);

    claims.ended(id, 2);
    assertThat(claims.takeForFinish(List.of(new Attempt(id, 2)))).containsExactly(id);
    assertThat(claims.takeDue(0)).as("left to the end's write").isEmpty();
    claims.finished(List.of(new Attempt(id, 2)));

    assertThat(claims.isUnwritten(id, 2)).isFalse();
    assertThat(claims.drainLetGo()).containsExactly(id);
  }
}
