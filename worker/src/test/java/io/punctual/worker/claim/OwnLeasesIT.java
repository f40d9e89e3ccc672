package io.punctual.worker.claim;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.queue.lease.Redlock;
import io.punctual.store.JobTransitions.Attempt;
import io.punctual.worker.WorkerHarness;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** An ended attempt's lease release leaves a lease that this worker holds for the job otherwise. */
class OwnLeasesIT {
  private static final Duration TTL = Duration.ofSeconds(30);
  private static final String WORKER = "own-leases-worker";

  private final WorkerHarness harness = new WorkerHarness();
  private final Redlock redlock = harness.stores.redlock();

  @AfterEach
  void close() {
    harness.close();
  }

  private boolean heldByWorker(UUID id) {
    return redlock.renew(List.of(id), WORKER, TTL).contains(id);
  }

  @Test
  void aReleaseLeavesTheLeaseOfAJobHeldHereUnderAnotherAttempt() {
    UUID heldAnew = UUID.randomUUID();
    UUID ended = UUID.randomUUID();
    OwnLeases leases =
        new OwnLeases(redlock, WORKER, a -> a.jobId().equals(heldAnew) && a.attempt() != 2);
    assertThat(leases.acquire(List.of(heldAnew, ended), TTL)).containsOnly(heldAnew, ended);
    leases.claimDone(List.of(heldAnew, ended));

    // Attempt 1 of each ended; attempt 2 of the first job runs here (claimed after a rescue).
    int kept =
        leases.releaseEnded(List.of(new Attempt(heldAnew, 1), new Attempt(ended, 1)), id -> false);

    assertThat(kept).isEqualTo(1);
    assertThat(heldByWorker(heldAnew)).isTrue();
    assertThat(redlock.isHeld(ended)).isFalse();
    // Attempt 2's own end releases it.
    assertThat(leases.releaseEnded(List.of(new Attempt(heldAnew, 2)), id -> false)).isZero();
    assertThat(redlock.isHeld(heldAnew)).isFalse();
  }

  @Test
  void aJobBeingClaimedOrWithAResultOnItsWayKeepsItsLease() {
    UUID claiming = UUID.randomUUID();
    UUID pending = UUID.randomUUID();
    OwnLeases leases = OwnLeases.of(redlock, WORKER);
    Set<UUID> leased = leases.acquire(List.of(claiming, pending), TTL);
    assertThat(leased).containsOnly(claiming, pending);
    leases.claimDone(List.of(pending));
    assertThat(leases.claiming()).isEqualTo(1);

    // The claim of the first has its lease but has not started its attempt; the second's newer
    // attempt ended and its result is not written yet.
    int kept =
        leases.releaseEnded(
            List.of(new Attempt(claiming, 1), new Attempt(pending, 1)), pending::equals);

    assertThat(kept).isEqualTo(2);
    assertThat(heldByWorker(claiming)).isTrue();
    assertThat(heldByWorker(pending)).isTrue();
    leases.claimDone(List.of(claiming));
    assertThat(leases.claiming()).isZero();
    assertThat(leases.releaseEnded(List.of(new Attempt(claiming, 1)), id -> false)).isZero();
    assertThat(redlock.isHeld(claiming)).isFalse();
  }

  @Test
  void leasesTakenElsewhereAreNotCountedAsBeingClaimedHere() {
    UUID other = UUID.randomUUID();
    assertThat(redlock.acquire(List.of(other), "another-worker", TTL)).containsOnly(other);
    OwnLeases leases = OwnLeases.of(redlock, WORKER);

    assertThat(leases.acquire(List.of(other), TTL)).isEmpty();

    assertThat(leases.claiming()).isZero();
    assertThat(redlock.renew(List.of(other), "another-worker", TTL)).containsOnly(other);
  }
}
