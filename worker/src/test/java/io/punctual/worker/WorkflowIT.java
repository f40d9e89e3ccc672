package io.punctual.worker;

import static io.punctual.common.job.RunCondition.ON_FAILURE;
import static io.punctual.common.job.RunCondition.ON_SUCCESS;
import static io.punctual.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.punctual.common.job.Job;
import io.punctual.common.job.JobState;
import io.punctual.common.job.Upstream;
import io.punctual.common.store.WorkflowStore;
import io.punctual.worker.handler.FollowUp;
import io.punctual.worker.handler.JobContext;
import io.punctual.worker.handler.JobHandler;
import io.punctual.worker.handler.JobHandlers;
import io.punctual.worker.handler.JobResult;
import io.punctual.worker.handler.NonRetryableException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
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
    WorkerSettings settings = WorkerHarness.settings();
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
    assertThat(harness.stores.workflows.find("default", workflow.id()).orElseThrow().status())
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
}
