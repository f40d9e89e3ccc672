package io.punctual.reaper;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import io.punctual.common.metrics.JobMetrics;
import io.punctual.model.Backoff;
import io.punctual.model.Execution;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.NewJob;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DeathWatchIT {
  private final ReaperFixture f = new ReaperFixture();
  private final MetricRegistry metrics = new MetricRegistry();
  private final DeathWatch watch =
      new DeathWatch(
          f.stores.clock(),
          Reaper.rescueStores(f.stores),
          f.stores.liveness(),
          f.rescuer(new Random(1)),
          f.settings,
          metrics);

  @AfterEach
  void close() {
    f.close();
  }

  private Job claimed(NewJob job, String worker) {
    Job stored = f.store(List.of(job)).get(0);
    Job running = f.stores.transitions().claim(List.of(stored.id()), worker).get(0);
    f.stores.redlock().acquire(List.of(running.id()), worker, Duration.ofSeconds(30));
    return running;
  }

  private NewJob due() {
    return aJob()
        .runAt(f.clock.instant())
        .backoff(new Backoff.Fixed(Duration.ofMinutes(5)))
        .build();
  }

  private void dies(String worker) throws InterruptedException {
    f.stores.liveness().renew(worker, Duration.ofMillis(100));
    Thread.sleep(200);
  }

  @Test
  void aDeadWorkersAttemptsRunAgainAtOnceWithTheirLeasesReleased() throws Exception {
    Job running = claimed(due(), "dead-w");
    dies("dead-w");

    assertThat(watch.runOnce()).isEqualTo(1);

    Job after = f.find(running);
    assertThat(after.status()).isEqualTo(JobState.PENDING);
    assertThat(after.runAt()).as("no backoff: the worker died").isEqualTo(f.clock.instant());
    assertThat(after.lastError()).contains("attempt 1 lost", "dead-w", "stopped reporting alive");
    assertThat(f.queued(after)).isTrue();
    assertThat(f.stores.redlock().isHeld(running.id()))
        .as("its lease (30 s left) is released, so another worker can claim it now")
        .isFalse();
    List<Execution> history = f.stores.queries().executions(after.namespace(), after.id());
    assertThat(history)
        .singleElement()
        .extracting(Execution::status)
        .isEqualTo(ExecutionStatus.LOST);
    assertThat(f.stores.liveness().expired(10).dead()).as("taken out of the live set").isEmpty();
    assertThat(metrics.meter("punctual.reaper.deadWorkers").getCount()).isEqualTo(1);
    assertThat(observations(metrics, "punctual_worker_death_to_rescue_seconds")).isEqualTo(1);
    assertThat(watch.runOnce()).as("nothing left").isZero();
  }

  @Test
  void aLiveWorkersAttemptsAreLeftAloneHoweverOldTheirHeartbeat() throws Exception {
    Job running = claimed(due(), "live-w");
    f.stores.liveness().renew("live-w", Duration.ofSeconds(30));
    dies("other-w");
    f.clock.advance(Duration.ofMinutes(5));

    assertThat(watch.runOnce()).isZero();
    assertThat(f.find(running).status()).isEqualTo(JobState.RUNNING);
    assertThat(f.stores.redlock().isHeld(running.id())).isTrue();
  }

  @Test
  void theLastAttemptOfADeadWorkerEndsFailed() throws Exception {
    Job running = claimed(aJob().runAt(f.clock.instant()).maxAttempts(1).build(), "dead-w");
    dies("dead-w");

    assertThat(watch.runOnce()).isEqualTo(1);
    assertThat(f.find(running).status()).isEqualTo(JobState.FAILED);
  }

  @Test
  void anAttemptClaimedAgainElsewhereIsNotTheDeadWorkers() throws Exception {
    Job running = claimed(due(), "dead-w");
    dies("dead-w");
    // Rescued by the slow path and claimed again by another worker before this pass.
    f.clock.advance(Duration.ofMinutes(2));
    f.stores.redlock().release(List.of(running.id()), "dead-w");
    f.rescuer(new Random(1)).runOnce();
    f.clock.advance(Duration.ofMinutes(5));
    Job again = f.stores.transitions().claim(List.of(running.id()), "live-w").get(0);
    assertThat(again.attempt()).isEqualTo(2);

    assertThat(watch.runOnce()).isZero();
    Job after = f.find(running);
    assertThat(after.status()).isEqualTo(JobState.RUNNING);
    assertThat(after.attempt()).isEqualTo(2);
    assertThat(after.workerId()).isEqualTo("live-w");
  }

  @Test
  void severalWatchersRescueADeadWorkersAttemptOnce() throws Exception {
    Job running = claimed(due(), "dead-w");
    DeathWatch second =
        new DeathWatch(
            f.stores.clock(),
            Reaper.rescueStores(f.stores),
            f.stores.liveness(),
            f.rescuer(new Random(2)),
            f.settings,
            new MetricRegistry());
    dies("dead-w");

    assertThat(watch.runOnce() + second.runOnce()).isEqualTo(1);
    assertThat(f.stores.queries().executions(running.namespace(), running.id())).hasSize(1);
  }

  @Test
  void redisLosingTheLiveSetRescuesNobody() throws Exception {
    Job running = claimed(due(), "live-w");
    f.stores.liveness().renew("live-w", Duration.ofMillis(100));
    f.stores.redis().sync().del(f.stores.keys().workersAlive()); // Redis restarted empty
    Thread.sleep(200);

    assertThat(watch.runOnce()).isZero();
    assertThat(f.find(running).status()).isEqualTo(JobState.RUNNING);
  }

  /** Observations of an unlabelled histogram of {@link JobMetrics} in {@code metrics}. */
  private static long observations(MetricRegistry metrics, String name) {
    for (var m : JobMetrics.of(metrics).registry().scrape()) {
      if (m.getMetadata().getName().equals(name)
          && m instanceof io.prometheus.metrics.model.snapshots.HistogramSnapshot h) {
        return h.getDataPoints().stream().mapToLong(d -> d.getCount()).sum();
      }
    }
    return 0;
  }
}
