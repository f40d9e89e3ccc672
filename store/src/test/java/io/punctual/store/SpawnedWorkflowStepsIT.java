package io.punctual.store;

import static io.punctual.model.RunCondition.ON_SUCCESS;
import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.model.Completion;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.NewJob;
import io.punctual.model.QueueEntry;
import io.punctual.model.Upstream;
import io.punctual.store.WorkflowStore.Step;
import io.punctual.store.WorkflowStore.Workflow;
import io.punctual.store.testing.StoreStack;
import io.punctual.store.testing.TestClock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Follow-ups spawned by a workflow's step belong to the workflow: they carry its id, are listed as
 * steps after their spawner, count in its status, and are cancelled with it, even when the cancel
 * races the success that spawns them.
 */
class SpawnedWorkflowStepsIT {
  private final TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
  private final StoreStack stack = new StoreStack(clock);
  private final JobSubmissions submissions = stack.submissions;
  private final JobTransitions transitions = stack.transitions;
  private final JobQueries queries = stack.queries;
  private final WorkflowStore workflows = new WorkflowStore(submissions);

  @BeforeEach
  void startTheClockNow() {
    clock.set(Instant.now().truncatedTo(ChronoUnit.MILLIS));
  }

  @AfterEach
  void close() {
    stack.close();
  }

  private Workflow workflow(WorkflowStore.NewStep... steps) {
    return workflows.create("default", List.of(steps), null, null).workflow();
  }

  private WorkflowStore.NewStep step(String ref, NewJob job) {
    return new WorkflowStore.NewStep(ref, job);
  }

  private Workflow read(Workflow w) {
    return workflows.find("default", w.id()).orElseThrow();
  }

  private Job job(Workflow w, String ref) {
    return read(w).steps().stream()
        .filter(s -> s.ref().equals(ref))
        .map(Step::job)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no step " + ref));
  }

  private JobTransitions.Ended end(Job job, JobState end, NewJob... spawned) {
    assertThat(transitions.claim(List.of(job.id()), "w")).hasSize(1);
    return transitions.finish(List.of(completion(job, end, spawned)));
  }

  private Completion completion(Job job, JobState end, NewJob... spawned) {
    return new Completion(
        job.id(),
        1,
        end,
        null,
        end == JobState.SUCCEEDED ? ExecutionStatus.SUCCEEDED : ExecutionStatus.FAILED,
        clock.instant(),
        2,
        end == JobState.SUCCEEDED ? null : "boom",
        null,
        null,
        List.of(spawned));
  }

  private NewJob due() {
    return aJob().runAt(clock.instant()).build();
  }

  @Test
  void followUpsOfAStepAreStepsOfItsWorkflowListedAfterTheirSpawner() {
    Workflow w =
        workflow(
            step("extract", due()),
            step("load", aJob().waitsFor(Upstream.inBatch(0, ON_SUCCESS)).build()));

    end(
        job(w, "extract"),
        JobState.SUCCEEDED,
        aJob().type("x").runAt(clock.instant()).build(),
        aJob().type("y").waitsFor(Upstream.inBatch(0, ON_SUCCESS)).build());

    Workflow read = read(w);
    assertThat(read.steps())
        .extracting(Step::ref)
        .containsExactly("extract", "extract.spawn[0]", "extract.spawn[1]", "load");
    Job x = job(w, "extract.spawn[0]");
    Job y = job(w, "extract.spawn[1]");
    assertThat(List.of(x.workflowId(), y.workflowId())).containsOnly(w.id());
    assertThat(x.parentId()).isEqualTo(job(w, "extract").id());
    assertThat(x.status()).isEqualTo(JobState.PENDING);
    assertThat(y.status()).isEqualTo(JobState.BLOCKED);

    end(job(w, "load"), JobState.SUCCEEDED);
    end(x, JobState.SUCCEEDED, aJob().type("z").runAt(clock.instant()).build());
    assertThat(read(w).status())
        .as("what the steps spawned is part of the workflow's work")
        .isEqualTo(WorkflowStore.Status.RUNNING);
    assertThat(read(w).steps())
        .extracting(Step::ref)
        .containsExactly(
            "extract", "extract.spawn[0]", "extract.spawn[1]", "extract.spawn[0].spawn[0]", "load");

    end(job(w, "extract.spawn[0].spawn[0]"), JobState.SUCCEEDED);
    end(job(w, "extract.spawn[1]"), JobState.FAILED);
    assertThat(read(w).status()).isEqualTo(WorkflowStore.Status.FAILED);
  }

  @Test
  void cancellingTheWorkflowCancelsWhatItsStepsSpawned() {
    Workflow w =
        workflow(
            step("a", due()), step("b", aJob().waitsFor(Upstream.inBatch(0, ON_SUCCESS)).build()));
    end(
        job(w, "a"),
        JobState.SUCCEEDED,
        aJob().type("later").runAt(clock.instant().plusSeconds(3600)).build());

    WorkflowStore.Cancelled cancelled = workflows.cancel("default", w.id()).orElseThrow();

    assertThat(cancelled.cancelled())
        .extracting(QueueEntry::id)
        .containsExactlyInAnyOrder(job(w, "a.spawn[0]").id(), job(w, "b").id());
    assertThat(job(w, "a.spawn[0]").status()).isEqualTo(JobState.CANCELLED);
    assertThat(read(w).status()).isEqualTo(WorkflowStore.Status.CANCELLED);
  }

  @Test
  void aFollowUpOutsideAWorkflowOrRepeatingAStoredJobGetsNoStep() {
    Job plain = submissions.submit(List.of(due())).get(0).job();
    end(plain, JobState.SUCCEEDED, aJob().type("free").idempotencyKey("shared", "same").build());
    Job free =
        queries
            .list(new JobQueries.JobQuery("default", null, "free", null, null, null, null, 10))
            .items()
            .get(0);
    assertThat(free.workflowId()).isNull();

    Workflow w = workflow(step("a", due()));
    end(
        job(w, "a"),
        JobState.SUCCEEDED,
        aJob().type("free").idempotencyKey("shared", "same").build());

    assertThat(read(w).steps())
        .as("an idempotent repeat stays the job it was, outside the workflow")
        .extracting(Step::ref)
        .containsExactly("a");
    assertThat(queries.find("default", free.id()).orElseThrow().workflowId()).isNull();
  }

  /**
   * A success that spawns a follow-up and a cancel of the workflow, at the same moment: either the
   * cancel comes first and the success (with its follow-up) is refused, or the follow-up is stored
   * first and cancelled with the rest. Never a follow-up left running in a cancelled workflow.
   */
  @Test
  void aCancelRacingASpawnNeverLeavesAFollowUpBehind() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 30; round++) {
        Workflow w = workflow(step("a", due()));
        Job a = job(w, "a");
        assertThat(transitions.claim(List.of(a.id()), "w")).hasSize(1);
        CyclicBarrier together = new CyclicBarrier(2);
        Future<?> finish =
            pool.submit(
                () -> {
                  together.await();
                  return transitions.finish(
                      List.of(completion(a, JobState.SUCCEEDED, aJob().type("f").build())));
                });
        Future<?> cancel =
            pool.submit(
                () -> {
                  together.await();
                  return workflows.cancel("default", w.id());
                });
        finish.get();
        cancel.get();

        Workflow after = read(w);
        assertThat(after.status()).isEqualTo(WorkflowStore.Status.CANCELLED);
        assertThat(after.steps())
            .as("round %d: %s", round, after.steps())
            .allMatch(s -> s.job().status().isTerminal());
        long stray =
            stack
                .database
                .jdbi()
                .withHandle(
                    h ->
                        h.createQuery(
                                "SELECT count(*) FROM jobs WHERE type = 'f'"
                                    + " AND status NOT IN ('CANCELLED')")
                            .mapTo(Long.class)
                            .one());
        assertThat(stray).as("round %d", round).isZero();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
