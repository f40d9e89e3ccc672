package io.punctual.api.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.client.BackoffPolicy;
import io.punctual.client.Callback;
import io.punctual.client.Dependency;
import io.punctual.client.DependencyView;
import io.punctual.client.ExecutionView;
import io.punctual.client.JobPage;
import io.punctual.client.JobPriority;
import io.punctual.client.JobRequest;
import io.punctual.client.JobStatus;
import io.punctual.client.JobView;
import io.punctual.client.JobWaitTimeoutException;
import io.punctual.client.ListQuery;
import io.punctual.client.LogPage;
import io.punctual.client.PunctualApiException;
import io.punctual.client.PunctualClient;
import io.punctual.client.RunCondition;
import io.punctual.client.WorkflowRequest;
import io.punctual.client.WorkflowView;
import io.punctual.model.Completion;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.JobState;
import io.punctual.model.Priority;
import io.punctual.model.Progress;
import io.punctual.store.AttemptOutputs;
import io.punctual.store.AttemptOutputs.LogReport;
import io.punctual.store.AttemptOutputs.ProgressReport;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Java client against the real API. */
class PunctualClientIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  private static PunctualClient client(String namespace) {
    return PunctualClient.create(FIXTURE.baseUri(), namespace).withApiKey(ApiFixture.ADMIN_KEY);
  }

  @Test
  void submitsAndReadsBackAJobWithEveryOption() {
    PunctualClient client = client("client-full");
    Instant runAt = FIXTURE.clock.instant().plus(Duration.ofMinutes(3));

    JobView job =
        client.submit(
            JobRequest.builder("report.build")
                .payload(Map.of("report", 42))
                .runAt(runAt)
                .priority(JobPriority.CRITICAL)
                .maxAttempts(7)
                .backoff(
                    BackoffPolicy.exponential(
                        Duration.ofSeconds(2), 3.0, Duration.ofMinutes(10), 0.1))
                .timeout(Duration.ofMinutes(1))
                .idempotencyKey("rep-42")
                .tags("reports", "nightly")
                .callback(new Callback(URI.create("https://hooks.example/r"), Map.of("A", "b")))
                .build());

    assertThat(job.status()).isEqualTo(JobStatus.PENDING);
    assertThat(job.namespace()).isEqualTo("client-full");
    assertThat(job.priority()).isEqualTo(JobPriority.CRITICAL);
    assertThat(job.runAt()).isEqualTo(runAt);
    assertThat(job.maxAttempts()).isEqualTo(7);
    assertThat(job.backoff().fields())
        .containsEntry("strategy", "exponential")
        .containsEntry("initialDelay", "PT2S")
        .containsEntry("factor", 3.0);
    assertThat(job.timeout()).isEqualTo(Duration.ofMinutes(1));
    assertThat(job.tags()).containsExactly("reports", "nightly");
    // Write-only: the client reads the name, never the value.
    assertThat(job.callback().headers()).containsExactly(Map.entry("A", "(hidden)"));
    assertThat(job.payload().get("report").asInt()).isEqualTo(42);
    assertThat(client.get(job.id())).isEqualTo(job);
    assertThat(
            FIXTURE
                .stack
                .redis
                .sync()
                .zscore(FIXTURE.stack.keys.queue("client-full", Priority.CRITICAL), job.id()))
        .isEqualTo((double) runAt.toEpochMilli());
  }

  @Test
  void aSubmitWithinATraceKeepsItsTraceparentAndAnInvalidOneIsIgnored() {
    PunctualClient client = client("client-traced");
    String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    JobView one = client.submit(JobRequest.builder("traced").build(), traceparent);
    List<JobView> batch =
        client.submitBatch(
            List.of(JobRequest.builder("traced").build(), JobRequest.builder("traced").build()),
            traceparent);
    JobView invalid = client.submit(JobRequest.builder("traced").build(), "00-nope");

    assertThat(one.traceparent()).isEqualTo(traceparent);
    assertThat(client.get(one.id()).traceparent()).isEqualTo(traceparent);
    assertThat(batch).extracting(JobView::traceparent).containsOnly(traceparent);
    assertThat(invalid.status()).isEqualTo(JobStatus.PENDING);
    assertThat(invalid.traceparent()).as("ignored, not refused").isNull();
    assertThat(client.submit(JobRequest.builder("traced").build()).traceparent()).isNull();
  }

  @Test
  void anIdempotentRepeatReturnsTheSameJob() {
    PunctualClient client = client("client-idem");
    JobRequest request = JobRequest.builder("pay").idempotencyKey("p-1").build();

    JobView first = client.submit(request);
    JobView again = client.submit(request);

    assertThat(again.id()).isEqualTo(first.id());
  }

  @Test
  void errorsBecomeApiExceptionsCarryingTheProblem() {
    PunctualClient client = client("client-errors");

    assertThatThrownBy(
            () ->
                client.submit(
                    JobRequest.builder("x").backoff(Map.of("strategy", "linear")).build()))
        .isInstanceOfSatisfying(
            PunctualApiException.class,
            e -> {
              assertThat(e.status()).isEqualTo(422);
              assertThat(e.type()).isEqualTo("https://punctual.dev/problems/invalid-request");
              assertThat(e.field()).isEqualTo("backoff.strategy");
              assertThat(e.errors()).hasSize(1);
              assertThat(e.title()).isNotBlank();
            });
    assertThatThrownBy(() -> client.get(UUID.randomUUID().toString()))
        .isInstanceOfSatisfying(
            PunctualApiException.class, e -> assertThat(e.status()).isEqualTo(404));
    assertThatThrownBy(() -> client.list(ListQuery.all().limit(1000)))
        .isInstanceOfSatisfying(
            PunctualApiException.class,
            e -> {
              assertThat(e.status()).isEqualTo(400);
              assertThat(e.field()).isEqualTo("limit");
            });
  }

  @Test
  void batchListCancelAndExecutions() {
    PunctualClient client = client("client-flow");
    List<JobView> batch =
        client.submitBatch(
            List.of(
                JobRequest.builder("a").delay(Duration.ofHours(1)).build(),
                JobRequest.builder("a").delay(Duration.ofHours(2)).build(),
                JobRequest.builder("a").delay(Duration.ofHours(3)).build()));
    assertThat(batch).hasSize(3);

    List<String> listed = new ArrayList<>();
    JobPage page = client.list(ListQuery.all().type("a").limit(2));
    listed.addAll(page.items().stream().map(JobView::id).toList());
    assertThat(page.hasMore()).isTrue();
    page = client.list(ListQuery.all().type("a").limit(2).cursor(page.nextCursor()));
    listed.addAll(page.items().stream().map(JobView::id).toList());
    assertThat(page.hasMore()).isFalse();
    assertThat(listed).containsExactly(batch.get(2).id(), batch.get(1).id(), batch.get(0).id());

    JobView cancelled = client.cancel(batch.get(0).id());
    assertThat(cancelled.status()).isEqualTo(JobStatus.CANCELLED);
    assertThat(cancelled.status().isFinal()).isTrue();
    assertThatThrownBy(() -> client.cancel(batch.get(0).id()))
        .isInstanceOfSatisfying(
            PunctualApiException.class, e -> assertThat(e.status()).isEqualTo(409));
    assertThat(client.list(ListQuery.all().status(JobStatus.CANCELLED)).items())
        .extracting(JobView::id)
        .containsExactly(batch.get(0).id());

    // a job is claimed only once it is due
    UUID running = UUID.fromString(client.submit(JobRequest.builder("a").build()).id());
    FIXTURE.stack.transitions.claim(List.of(running), "w-1");
    List<ExecutionView> executions = client.executions(running.toString());
    assertThat(executions).hasSize(1);
    assertThat(executions.get(0).attempt()).isEqualTo(1);
    assertThat(executions.get(0).status()).isEqualTo("RUNNING");
    assertThat(executions.get(0).workerId()).isEqualTo("w-1");
    assertThat(client.get(running.toString()).attempts()).isEqualTo(1);

    // what its handler reported: progress on the job, the attempt's log lines a page at a time
    assertThat(client.get(running.toString()).progress()).isNull();
    AttemptOutputs outputs = new AttemptOutputs(FIXTURE.stores.database().jdbi());
    Instant at = FIXTURE.clock.instant();
    outputs.write(
        List.of(new ProgressReport(running, 1, "client-flow", Progress.of(1, 4), at)),
        List.of(
            new LogReport(running, 1, "client-flow", 1, "first", at),
            new LogReport(running, 1, "client-flow", 2, "second", at)));
    JobView.ProgressView progress = client.get(running.toString()).progress();
    assertThat(progress.attempt()).isEqualTo(1);
    assertThat(progress.percent()).isEqualTo(25.0);
    assertThat(progress.done()).isEqualTo(1L);
    assertThat(progress.total()).isEqualTo(4L);
    LogPage log = client.logs(running.toString(), null, 0);
    assertThat(log.attempt()).isEqualTo(1);
    assertThat(log.lines()).extracting(LogPage.Line::line).containsExactly("first", "second");
    assertThat(log.next()).isEqualTo(2);
    assertThat(client.logs(running.toString(), 1, log.next()).lines()).isEmpty();
  }

  @Test
  void namespacesAreSeparate() {
    JobView job = client("client-ns-1").submit(JobRequest.builder("n").build());

    assertThatThrownBy(() -> client("client-ns-1").withNamespace("client-ns-2").get(job.id()))
        .isInstanceOf(PunctualApiException.class);
    assertThat(PunctualClient.create(FIXTURE.baseUri()).namespace()).isEqualTo("default");
  }

  @Test
  void workflowsAndDependenciesThroughTheClient() {
    PunctualClient client = client("client-workflows");
    JobView stored = client.submit(JobRequest.builder("noop").build());

    WorkflowView workflow =
        client.submitWorkflow(
            WorkflowRequest.of(
                    JobRequest.builder("extract").ref("a").build(),
                    JobRequest.builder("compile")
                        .ref("b")
                        .dependsOn(Dependency.onStep("a"), Dependency.on(stored.id()).optional())
                        .build(),
                    JobRequest.builder("alert")
                        .ref("c")
                        .parent("b", RunCondition.ON_FAILURE)
                        .build())
                .withIdempotencyKey("wf-1"));

    assertThat(workflow.status()).isEqualTo("RUNNING");
    assertThat(workflow.step("a").status()).isEqualTo(JobStatus.PENDING);
    assertThat(workflow.step("b").status()).isEqualTo(JobStatus.BLOCKED);
    assertThat(workflow.step("c").runCondition()).isEqualTo(RunCondition.ON_FAILURE);
    assertThat(client.get(workflow.step("c").id()).parentId()).isEqualTo(workflow.step("b").id());
    assertThat(client.get(workflow.step("b").id()).workflowId()).isEqualTo(workflow.id());
    assertThat(client.getWorkflow(workflow.id()).jobs()).hasSize(3);

    List<DependencyView> compileWaitsFor =
        List.of(
            new DependencyView(workflow.step("a").id(), true, RunCondition.ON_SUCCESS),
            new DependencyView(stored.id(), false, RunCondition.ALWAYS));
    assertThat(client.get(workflow.step("b").id()).dependsOn())
        .containsExactlyInAnyOrderElementsOf(compileWaitsFor);
    assertThat(workflow.step("b").dependsOn()).containsExactlyInAnyOrderElementsOf(compileWaitsFor);
    assertThat(client.getWorkflow(workflow.id()).step("b").dependsOn())
        .containsExactlyInAnyOrderElementsOf(compileWaitsFor);
    assertThat(workflow.step("c").dependsOn()).as("a parent is not a dependency").isEmpty();
    assertThat(client.get(stored.id()).dependsOn()).isEmpty();
    JobView waiting =
        client.submit(
            JobRequest.builder("wait")
                .dependsOn(
                    Dependency.on(stored.id()).optional(), Dependency.on(workflow.step("a").id()))
                .build());
    assertThat(waiting.dependsOn())
        .as("a submit answers with what the job waits for, as a read does")
        .containsExactlyInAnyOrder(
            new DependencyView(stored.id(), false, RunCondition.ALWAYS),
            new DependencyView(workflow.step("a").id(), true, RunCondition.ON_SUCCESS))
        .isEqualTo(client.get(waiting.id()).dependsOn());
    assertThat(client.list(ListQuery.all().type("compile")).items())
        .singleElement()
        .satisfies(j -> assertThat(j.dependsOn()).as("list pages leave it out").isNull());

    WorkflowView cancelled = client.cancelWorkflow(workflow.id());
    assertThat(cancelled.status()).isEqualTo("CANCELLED");
    assertThat(cancelled.jobs()).allMatch(step -> step.status() == JobStatus.CANCELLED);
    assertThat(cancelled.jobs()).allMatch(step -> step.status().isFinal());
  }

  @Test
  void awaitFinalReturnsTheJobOnceItEnds() throws Exception {
    PunctualClient client = client("client-await");
    JobView job = client.submit(JobRequest.builder("await.me").build());
    UUID id = UUID.fromString(job.id());
    ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor();
    try {
      // As a worker would, 300 ms from now: claim the job and record its success.
      worker.schedule(
          () -> {
            FIXTURE.stack.transitions.claim(List.of(id), "w-await");
            FIXTURE.stack.transitions.finish(
                List.of(
                    new Completion(
                        id,
                        1,
                        JobState.SUCCEEDED,
                        null,
                        ExecutionStatus.SUCCEEDED,
                        FIXTURE.clock.instant(),
                        1,
                        null,
                        null,
                        null,
                        List.of())));
          },
          300,
          TimeUnit.MILLISECONDS);
      long start = System.nanoTime();

      JobView ended = client.awaitFinal(job.id(), Duration.ofSeconds(20));

      assertThat(ended.status()).isEqualTo(JobStatus.SUCCEEDED);
      assertThat(ended.workerId()).isEqualTo("w-await");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
      // A job final already is returned at once.
      assertThat(client.awaitFinal(job.id(), Duration.ZERO).status())
          .isEqualTo(JobStatus.SUCCEEDED);
    } finally {
      worker.shutdownNow();
    }
  }

  @Test
  void awaitFinalGivesUpAfterTheTimeoutWithTheJobAsLastRead() {
    PunctualClient client = client("client-await");
    JobView job = client.submit(JobRequest.builder("await.never").build());
    long start = System.nanoTime();

    assertThatThrownBy(() -> client.awaitFinal(job.id(), Duration.ofMillis(400)))
        .isInstanceOfSatisfying(
            JobWaitTimeoutException.class,
            e -> {
              assertThat(e).isInstanceOf(TimeoutException.class);
              assertThat(e.job().id()).isEqualTo(job.id());
              assertThat(e.job().status()).isEqualTo(JobStatus.PENDING);
              assertThat(e.waited()).isGreaterThanOrEqualTo(Duration.ofMillis(400));
              assertThat(e.getMessage()).contains(job.id()).contains("PENDING");
            });
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThatThrownBy(() -> client.awaitFinal(UUID.randomUUID().toString(), Duration.ofSeconds(1)))
        .isInstanceOfSatisfying(
            PunctualApiException.class, e -> assertThat(e.status()).isEqualTo(404));
  }

  @Test
  void awaitFinalStopsWhenItsThreadIsInterrupted() throws Exception {
    PunctualClient client = client("client-await");
    JobView job = client.submit(JobRequest.builder("await.interrupted").build());
    ExecutorService waiter = Executors.newSingleThreadExecutor();
    try {
      CompletableFuture<Throwable> outcome = new CompletableFuture<>();
      Future<?> waiting =
          waiter.submit(
              () -> {
                try {
                  client.awaitFinal(job.id(), Duration.ofMinutes(5));
                  outcome.complete(null);
                } catch (Throwable t) {
                  outcome.complete(t);
                }
              });
      Thread.sleep(300);
      waiting.cancel(true);

      assertThat(outcome.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    } finally {
      waiter.shutdownNow();
    }
  }
}
