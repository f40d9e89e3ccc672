package io.punctual.reaper;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.model.Job;
import io.punctual.model.Priority;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReconcilerIT {
  private final ReaperFixture f = new ReaperFixture();
  private final Reconciler reconciler = f.reconciler();

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void aPendingJobMissingFromRedisIsQueuedAgainOnceOverdueByTheGraceAfterTheHoldBack() {
    // committed, then the API died before its enqueue
    Job job =
        f.store(List.of(aJob().runAt(f.clock.instant()).priority(Priority.HIGH).build())).get(0);

    f.clock.advance(Duration.ofSeconds(5));
    assertThat(reconciler.runOnce().enqueued()).as("still inside the grace").isZero();
    assertThat(f.queued(job)).isFalse();

    f.clock.advance(Duration.ofSeconds(6));
    assertThat(reconciler.runOnce().enqueued()).isEqualTo(1);
    assertThat(f.queued(job)).isTrue();
    // Missing perhaps because Redis lost its data, with a live worker running it on a claim it has
    // not written yet: it may be taken once that worker has surely written it.
    Duration holdBack = f.stores.queueSettings().recoveryHoldBack;
    assertThat(holdBack).isEqualTo(Duration.ofSeconds(3));
    assertThat(
            f.stores
                .redis()
                .sync()
                .zscore(f.stores.keys().queue("default", Priority.HIGH), job.id().toString()))
        .isEqualTo((double) f.clock.instant().plus(holdBack).toEpochMilli());

    assertThat(reconciler.runOnce().enqueued()).as("idempotent").isZero();
  }

  @Test
  void aQueuedJobKeepsItsScore() {
    Job job = f.submit(List.of(aJob().runAt(f.clock.instant()).build())).get(0);
    f.clock.advance(Duration.ofMinutes(1));

    assertThat(reconciler.runOnce()).isEqualTo(new Reconciler.Repairs(0, 0));
    assertThat(f.queued(job)).isTrue();
  }

  @Test
  void anEntryWhoseJobIsNoLongerPendingIsRemoved() {
    Job cancelled = f.submit(List.of(aJob().runAt(f.clock.instant()).build())).get(0);
    Job pending = f.submit(List.of(aJob().runAt(f.clock.instant()).build())).get(0);
    // cancelled in PostgreSQL, but the API's removal from Redis failed
    f.stores.transitions().cancel("default", cancelled.id());
    f.clock.advance(Duration.ofSeconds(11));

    assertThat(reconciler.runOnce().removed()).isEqualTo(1);
    assertThat(f.queued(cancelled)).isFalse();
    assertThat(f.queued(pending)).isTrue();
  }

  @Test
  void removalTakesOnlyAnEntryThatStillHasTheScoreRead() {
    Job job = f.submit(List.of(aJob().runAt(f.clock.instant()).build())).get(0);
    f.stores.transitions().cancel("default", job.id());
    f.clock.advance(Duration.ofSeconds(11));
    String queue = f.stores.keys().queue("default", job.priority());
    long readScore = job.runAt().toEpochMilli();
    // between the reaper's read and its removal, a retry re-added the member with a later score
    f.stores.redis().sync().zadd(queue, readScore + 5_000, job.id().toString());

    assertThat(reconciler.removeIfUnchanged(queue, java.util.Map.of(job.id(), readScore))).isZero();
    assertThat(reconciler.removeIfUnchanged(queue, java.util.Map.of(job.id(), readScore + 5_000)))
        .isEqualTo(1);
    assertThat(f.queued(job)).isFalse();
  }
}
