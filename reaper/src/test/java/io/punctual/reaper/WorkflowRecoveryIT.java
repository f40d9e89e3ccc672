package io.punctual.reaper;

import static io.punctual.model.RunCondition.ALWAYS;
import static io.punctual.model.RunCondition.ON_SUCCESS;
import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.model.Backoff;
import io.punctual.model.Completion;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.Upstream;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A dependency whose worker dies mid-run, at the level of the store (the claim stands for a worker
 * that then vanished; {@link KilledWorkerChainIT} kills a real worker process): the reaper revives
 * it, and the jobs waiting for it move on when the revived attempt ends; when no attempt is left,
 * the failure moves them on just the same (skipping the ones that needed it, releasing the others
 * into Redis).
 */
class WorkflowRecoveryIT {
  private final ReaperFixture f = new ReaperFixture();
  private final Rescuer rescuer = f.rescuer(new Random(1));

  @AfterEach
  void close() {
    f.close();
  }

  private List<Job> chain(int maxAttempts) {
    return f.store(
        List.of(
            aJob()
                .runAt(f.clock.instant())
                .maxAttempts(maxAttempts)
                .backoff(new Backoff.Fixed(Duration.ofSeconds(1)))
                .build(),
            aJob().waitsFor(Upstream.inBatch(0, ON_SUCCESS)).build(),
            aJob().waitsFor(Upstream.inBatch(1, ALWAYS)).build()));
  }

  @Test
  void theChainCompletesAfterTheReaperRevivesTheDependencyItsWorkerLost() {
    List<Job> jobs = chain(3);
    Job first = jobs.get(0);
    f.stores.transitions().claim(List.of(first.id()), "killed-worker");
    f.clock.advance(Duration.ofSeconds(61));

    assertThat(rescuer.runOnce()).isEqualTo(1);
    assertThat(f.find(first).status()).isEqualTo(JobState.PENDING);
    assertThat(f.find(jobs.get(1)).status()).as("still waiting").isEqualTo(JobState.BLOCKED);

    f.clock.advance(Duration.ofSeconds(2));
    assertThat(f.stores.transitions().claim(List.of(first.id()), "other-worker")).hasSize(1);
    var ended =
        f.stores
            .transitions()
            .finish(
                List.of(
                    new Completion(
                        first.id(),
                        2,
                        JobState.SUCCEEDED,
                        null,
                        ExecutionStatus.SUCCEEDED,
                        f.clock.instant(),
                        5,
                        null,
                        null,
                        null,
                        List.of())));

    assertThat(ended.released()).extracting(e -> e.id()).containsExactly(jobs.get(1).id());
    assertThat(f.find(jobs.get(1)).status()).isEqualTo(JobState.PENDING);
    assertThat(f.find(jobs.get(2)).status()).isEqualTo(JobState.BLOCKED);
  }

  @Test
  void aDependencyLostOnItsLastAttemptFailsAndTheReaperMovesTheChainOn() {
    List<Job> jobs = chain(1);
    f.stores.transitions().claim(List.of(jobs.get(0).id()), "killed-worker");
    f.clock.advance(Duration.ofSeconds(61));

    assertThat(rescuer.runOnce()).isEqualTo(1);

    assertThat(f.find(jobs.get(0)).status()).isEqualTo(JobState.FAILED);
    assertThat(f.find(jobs.get(1)).status()).isEqualTo(JobState.SKIPPED);
    Job last = f.find(jobs.get(2));
    assertThat(last.status()).isEqualTo(JobState.PENDING);
    assertThat(f.queued(last)).as("released jobs due now go into Redis").isTrue();
  }
}
