package io.punctual.worker;

import static io.punctual.model.RunCondition.ON_FAILURE;
import static io.punctual.model.RunCondition.ON_SUCCESS;
import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.punctual.handler.FollowUp;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.handler.NonRetryableException;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.Upstream;
import io.punctual.store.WorkflowStore;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Workflows run by a real worker: fan-out/fan-in, chains, run conditions, spawned follow-ups. */
class WorkflowIT {
  private final WorkerHarness harness = new WorkerHarness();
  private final RecordingHandler step = new RecordingHandler("step");
  private final RecordingHandler fanIn = new RecordingHandler("fan-in");
  private final RecordingHandler alert = new RecordingHandler("alert");

  @AfterEach
  void close() {
    harness.close();
  }

  private void startWorker(JobHandler... more) {
    startWorker(WorkerHarness.settings(), more);
  }

  private void startWorker(WorkerSettings settings, JobHandler... more) {
    JobHandlers handlers = new JobHandlers().register(step).register(fanIn).register(alert);
    for (JobHandler h : more) {
      handlers.register(h);
    }
    harness.start(settings, handlers);
  }

  private static JobHandler failing(String type) {
    return new JobHandler() {
      @Override
      public String type() {
        return type;
      }

      @Override
      public JobResult handle(JobContext ctx) throws Exception {
        throw new NonRetryableException("planned failure");
      }
    };
  }

  @Test
  void aThousandChildrenFanOutAndTheFanInRunsOnceAfterAllOfThem() {
    startWorker();
    int children = 1_000;
    List<WorkflowStore.NewStep> steps = new ArrayList<>();
    steps.add(new WorkflowStore.NewStep("root", aJob().type("step").runAt(Instant.now()).build()));
    List<Upstream> all = new ArrayList<>();
    for (int i = 1; i <= children; i++) {
      steps.add(
          new WorkflowStore.NewStep(
              "child-" + i,
              aJob().type("step").waitsFor(Upstream.inBatch(0, ON_SUCCESS).asParent()).build()));
      all.add(Upstream.inBatch(i, ON_SUCCESS));
    }
    steps.add(
        new WorkflowStore.NewStep(
            "fan-in", aJob().type("fan-in").waitsFor(all.toArray(Upstream[]::new)).build()));

    WorkflowStore.Workflow workflow = harness.submitWorkflow(steps);
    Job last = workflow.steps().get(children + 1).job();
    assertThat(last.status()).isEqualTo(JobState.BLOCKED);

    Job done = harness.awaitState(last, JobState.SUCCEEDED, Duration.ofSeconds(90));

    assertThat(fanIn.runs()).hasSize(1);
    assertThat(step.runs()).hasSize(children + 1);
    Instant lastChildFinished =
        Instant.ofEpochMilli(
            harness.count(
                "SELECT (EXTRACT(EPOCH FROM max(finished_at)) * 1000)::bigint FROM jobs"
                    + " WHERE type = 'step'"));
    assertThat(done.startedAt()).isAfterOrEqualTo(lastChildFinished);
    assertThat(harness.count("SELECT count(*) FROM job_executions")).isEqualTo(children + 2L);
    assertThat(harness.stores.workflows().find("default", workflow.id()).orElseThrow().status())
        .isEqualTo(WorkflowStore.Status.SUCCEEDED);
  }

  @Test
  void aChainRunsInOrderAndAFailureTakesTheAlertBranch() {
    startWorker(failing("broken"));
    List<Job> jobs =
        harness.submit(
            List.of(
                aJob().type("step").runAt(Instant.now()).build(),
                aJob().type("broken").waitsFor(Upstream.inBatch(0, ON_SUCCESS)).build(),
                aJob().type("step").waitsFor(Upstream.inBatch(1, ON_SUCCESS)).build(),
                aJob().type("alert").waitsFor(Upstream.inBatch(1, ON_FAILURE).asParent()).build()));

    harness.awaitState(jobs.get(3), JobState.SUCCEEDED);

    assertThat(harness.find(jobs.get(1)).status()).isEqualTo(JobState.FAILED);
    Job skipped = harness.find(jobs.get(2));
    assertThat(skipped.status()).isEqualTo(JobState.SKIPPED);
    assertThat(skipped.lastError()).contains(jobs.get(1).id().toString(), "FAILED");
    assertThat(step.runs()).hasSize(1);
    assertThat(alert.runs()).hasSize(1);
    assertThat(harness.executions(skipped)).as("a skipped job never ran").isEmpty();
  }

  /** Spawns two follow-ups, the second after the first; counts its own runs. */
  private static final class Spawner implements JobHandler {
    @Override
    public String type() {
      return "spawner";
    }

    @Override
    public JobResult handle(JobContext ctx) {
      int first =
          ctx.spawn(FollowUp.of("step").payload(JsonNodeFactory.instance.objectNode().put("n", 1)));
      ctx.spawn(FollowUp.of("fan-in").after(first, ON_SUCCESS));
      return JobResult.success();
    }
  }

  @Test
  void followUpsSpawnedByAHandlerRunAfterItAsItsChildren() {
    startWorker(new Spawner());
    Job spawner = harness.submit(aJob().type("spawner").runAt(Instant.now()).build());

    await().atMost(Duration.ofSeconds(10)).until(() -> fanIn.runs().size() == 1);

    assertThat(step.runs()).hasSize(1);
    assertThat(step.runs().get(0).ctx().payload().get("n").asInt()).isEqualTo(1);
    assertThat(step.runs().get(0).startedAt()).isBeforeOrEqualTo(fanIn.runs().get(0).startedAt());
    assertThat(harness.count("SELECT count(*) FROM jobs WHERE parent_id = '" + spawner.id() + "'"))
        .isEqualTo(2);
  }

  /** A handler of type {@code type} that spawns what {@code spawn} asks for, then succeeds. */
  private static JobHandler spawning(String type, java.util.function.Consumer<JobContext> spawn) {
    return new JobHandler() {
      @Override
      public String type() {
        return type;
      }

      @Override
      public JobResult handle(JobContext ctx) {
        spawn.accept(ctx);
        return JobResult.success();
      }
    };
  }

  /**
   * One batch of completions (they all end within the flush interval) in which one handler spawned
   * a follow-up waiting for a job that does not exist and two spawned the same idempotency key: the
   * first is recorded as a failed attempt saying why, the others as successes, and the same key
   * makes one job. Before, the store refused the whole batch and the worker wrote it again for
   * ever, recording nothing else.
   */
  @Test
  void aFollowUpTheStoreRefusesFailsOnlyTheAttemptThatSpawnedIt() {
    WorkerSettings settings = WorkerHarness.settings();
    settings.completionFlushInterval = Duration.ofMillis(500);
    UUID missing = UUID.randomUUID();
    startWorker(
        settings,
        new Spawner(),
        spawning("unknown", ctx -> ctx.spawn(FollowUp.of("step").after(missing, ON_SUCCESS))),
        spawning("keyed", ctx -> ctx.spawn(FollowUp.of("alert").idempotencyKey("once"))));
    List<Job> jobs =
        harness.submit(
            List.of(
                aJob().type("keyed").runAt(Instant.now()).build(),
                aJob().type("unknown").runAt(Instant.now()).maxAttempts(3).build(),
                aJob().type("keyed").runAt(Instant.now()).build(),
                aJob().type("spawner").runAt(Instant.now()).build(),
                aJob().type("step").runAt(Instant.now()).build()));

    await().atMost(Duration.ofSeconds(10)).until(() -> fanIn.runs().size() == 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> alert.runs().size() == 1);

    Job refused = harness.awaitState(jobs.get(1), JobState.FAILED);
    assertThat(refused.attempt()).as("not retried: it would spawn the same").isEqualTo(1);
    assertThat(refused.lastError())
        .isEqualTo(
            "follow-up jobs refused: follow-up 0: no job "
                + missing
                + " in this namespace to wait for");
    assertThat(harness.executions(refused))
        .extracting(e -> e.status().name())
        .containsExactly("FAILED");
    for (int i : new int[] {0, 2, 3, 4}) {
      assertThat(harness.awaitState(jobs.get(i), JobState.SUCCEEDED).attempt()).isEqualTo(1);
    }
    assertThat(harness.count("SELECT count(*) FROM jobs WHERE idempotency_key = 'once'"))
        .as("two handlers, one key: one job")
        .isEqualTo(1);
    assertThat(harness.count("SELECT count(*) FROM jobs WHERE parent_id = '" + refused.id() + "'"))
        .isZero();
    assertThat(step.runs()).as("the step job and the spawner's first follow-up").hasSize(2);
    harness.awaitMeter("failed", 1);
  }

  @Test
  void aFollowUpThatCanNeverBeStoredFailsTheHandlerAtOnce() {
    startWorker(
        spawning(
            "forward",
            ctx -> {
              ctx.spawn(FollowUp.of("step"));
              ctx.spawn(FollowUp.of("step").after(1, ON_SUCCESS));
            }));
    Job job = harness.submit(aJob().type("forward").runAt(Instant.now()).maxAttempts(5).build());

    Job failed = harness.awaitState(job, JobState.FAILED);

    assertThat(failed.attempt()).isEqualTo(1);
    assertThat(failed.lastError())
        .isEqualTo(
            "invalid follow-up: follow-up 1 waits for follow-up 1:"
                + " a follow-up may wait only for an earlier one");
    assertThat(harness.count("SELECT count(*) FROM jobs WHERE parent_id = '" + job.id() + "'"))
        .as("a failed attempt stores none of its follow-ups")
        .isZero();
    assertThat(step.runs()).isEmpty();
  }
}
