package io.punctual.worker.handler;

import static io.punctual.model.RunCondition.ALWAYS;
import static io.punctual.model.RunCondition.ON_SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.punctual.handler.FollowUp;
import io.punctual.handler.InvalidFollowUpException;
import io.punctual.handler.JobContext;
import io.punctual.model.Backoff;
import io.punctual.model.Job;
import io.punctual.model.NewJob;
import io.punctual.model.Priority;
import io.punctual.model.Upstream;
import io.punctual.worker.run.TestJobs;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** What {@link JobContext#spawn} refuses at once: follow-ups that could never be stored. */
class SpawnValidationTest {
  private final Job job =
      TestJobs.running(
          "t", JsonNodeFactory.instance.objectNode(), 1, 3, Backoff.DEFAULT, null, Priority.HIGH);
  private final UUID jobId = job.id();
  private final JobContext ctx =
      JobContext.of(
          job,
          null,
          () -> false,
          Clock.fixed(Instant.parse("2030-01-01T00:00:00Z"), ZoneOffset.UTC));

  @Test
  void followUpsMayWaitForEarlierOnesAndStoredJobs() {
    UUID stored = UUID.randomUUID();
    int a = ctx.spawn(FollowUp.of("a"));
    int b = ctx.spawn(FollowUp.of("b").after(a, ON_SUCCESS).after(stored, ALWAYS));
    int c = ctx.spawn(FollowUp.of("c").after(a, ALWAYS).after(b, ON_SUCCESS));

    assertThat(List.of(a, b, c)).containsExactly(0, 1, 2);
    List<NewJob> spawned = ctx.spawned();
    assertThat(spawned).extracting(NewJob::type).containsExactly("a", "b", "c");
    assertThat(spawned.get(1).links().upstream())
        .containsExactly(Upstream.inBatch(0, ON_SUCCESS), Upstream.stored(stored, ALWAYS));
    assertThat(spawned.get(0).priority()).as("the spawner's priority").isEqualTo(Priority.HIGH);
  }

  private void assertRefused(FollowUp followUp, String message) {
    int before = ctx.spawned().size();
    assertThatThrownBy(() -> ctx.spawn(followUp))
        .isInstanceOf(InvalidFollowUpException.class)
        .hasMessageContaining(message);
    assertThat(ctx.spawned()).as("a refused follow-up is not kept").hasSize(before);
  }

  @Test
  void anIndexNoEarlierFollowUpHasIsRefused() {
    ctx.spawn(FollowUp.of("a"));

    assertRefused(
        FollowUp.of("b").after(5, ON_SUCCESS),
        "follow-up 1 waits for follow-up 5: a follow-up may wait only for an earlier one");
    assertRefused(FollowUp.of("itself").after(1, ON_SUCCESS), "waits for follow-up 1");
    assertThatThrownBy(() -> FollowUp.of("negative").after(-1, ON_SUCCESS))
        .isInstanceOf(InvalidFollowUpException.class)
        .hasMessageContaining(">= 0");
  }

  @Test
  void waitingForTheSpawnerOrTwiceForOneJobIsRefused() {
    UUID stored = UUID.randomUUID();
    assertRefused(
        FollowUp.of("a").after(jobId, ALWAYS),
        "follow-up 0 waits for the job that spawned it, which is already its parent");
    assertRefused(
        FollowUp.of("a").after(stored, ALWAYS).after(stored, ON_SUCCESS),
        "waits for the same job twice");
    ctx.spawn(FollowUp.of("first"));
    assertRefused(
        FollowUp.of("b").after(0, ALWAYS).after(0, ON_SUCCESS), "waits for the same job twice");
  }

  @Test
  void twoFollowUpsOfOneAttemptCannotShareAnIdempotencyKey() {
    ctx.spawn(FollowUp.of("a").idempotencyKey("k"));
    ctx.spawn(FollowUp.of("b").idempotencyKey("other"));

    assertRefused(
        FollowUp.of("c").idempotencyKey("k"),
        "follow-up 2 repeats the idempotencyKey 'k' of follow-up 0");
  }
}
