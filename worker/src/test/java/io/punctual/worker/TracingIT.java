package io.punctual.worker;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.punctual.common.json.Json;
import io.punctual.handler.FollowUp;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.worker.CallbackServer.Response;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import io.punctual.worker.trace.AttemptTracing;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TracingIT {
  private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String SUBMITTER = "00-" + TRACE + "-00f067aa0ba902b7-01";

  private final WorkerHarness harness = new WorkerHarness();
  private final WorkerSettings settings = WorkerHarness.settings();
  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final SdkTracerProvider provider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
  private final Map<String, String> seen = new ConcurrentHashMap<>();

  @AfterEach
  void close() {
    harness.close();
    provider.close();
  }

  /** Records the traceparent its context hands on; the first run spawns a follow-up. */
  private final JobHandler parent =
      new JobHandler() {
        @Override
        public String type() {
          return "parent";
        }

        @Override
        public JobResult handle(JobContext ctx) {
          seen.put("parent", ctx.traceparent());
          ctx.spawn(FollowUp.of("child"));
          return JobResult.success();
        }
      };

  private final JobHandler child =
      new JobHandler() {
        @Override
        public String type() {
          return "child";
        }

        @Override
        public JobResult handle(JobContext ctx) {
          seen.put("child", ctx.traceparent());
          return JobResult.success();
        }
      };

  private AttemptTracing tracing() {
    return AttemptTracing.on(OpenTelemetrySdk.builder().setTracerProvider(provider).build());
  }

  private SpanData span(String name) {
    return spans.getFinishedSpanItems().stream()
        .filter(s -> s.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void anAttemptsSpanContinuesTheSubmittersTraceAndItsFollowUpContinuesTheAttempts() {
    JobHandlers handlers = harness.builtIns(settings).register(parent).register(child);
    harness.startTraced(settings, handlers, tracing());
    Job job =
        harness.submit(aJob().type("parent").build().toBuilder().traceparent(SUBMITTER).build());
    assertThat(harness.find(job).traceparent()).isEqualTo(SUBMITTER);

    await().atMost(Duration.ofSeconds(10)).until(() -> spans.getFinishedSpanItems().size() == 2);

    SpanData run = span("run parent");
    assertThat(run.getTraceId()).isEqualTo(TRACE);
    assertThat(run.getParentSpanId()).isEqualTo("00f067aa0ba902b7");
    assertThat(run.getKind()).isEqualTo(SpanKind.CONSUMER);
    assertThat(run.getAttributes().asMap().toString())
        .contains(job.id().toString(), "punctual.job.attempt=1");
    assertThat(seen.get("parent")).isEqualTo("00-" + TRACE + "-" + run.getSpanId() + "-01");

    SpanData followUp = span("run child");
    assertThat(followUp.getTraceId()).isEqualTo(TRACE);
    assertThat(followUp.getParentSpanId())
        .as("a child of its spawner's attempt")
        .isEqualTo(run.getSpanId());
    assertThat(seen.get("child")).contains(followUp.getSpanId());
  }

  @Test
  void withoutTracingTheJobsOwnTraceparentIsHandedOnAndNoSpanIsMade() {
    JobHandlers handlers = harness.builtIns(settings).register(parent).register(child);
    harness.start(settings, handlers);
    Job job =
        harness.submit(aJob().type("parent").build().toBuilder().traceparent(SUBMITTER).build());
    harness.awaitState(job, JobState.SUCCEEDED);
    await().until(() -> seen.containsKey("child"));

    assertThat(seen.get("parent")).isEqualTo(SUBMITTER);
    assertThat(seen.get("child")).as("the follow-up carries it on").isEqualTo(SUBMITTER);
    assertThat(spans.getFinishedSpanItems()).isEmpty();
  }

  @Test
  void theHttpHandlerSendsTheAttemptsTraceparent() throws Exception {
    settings.http.allow = List.of("127.0.0.1/32");
    harness.allowLoopbackCallbacks("default");
    harness.startTraced(settings, harness.builtIns(settings), tracing());
    try (CallbackServer server = new CallbackServer(Response.of(200, "{}"))) {
      Job job =
          harness.submit(
              aJob()
                  .type("http")
                  .callback(Json.readTree("{\"url\":\"" + server.url() + "\"}"))
                  .build()
                  .toBuilder()
                  .traceparent(SUBMITTER)
                  .build());
      harness.awaitState(job, JobState.SUCCEEDED);

      SpanData run = span("run http");
      assertThat(server.requests())
          .singleElement()
          .satisfies(
              r ->
                  assertThat(r.header("traceparent"))
                      .isEqualTo("00-" + TRACE + "-" + run.getSpanId() + "-01"));
    }
  }

  @Test
  void anInvalidTraceparentIsDropped() {
    assertThat(
            aJob().build().toBuilder()
                .traceparent("00-" + "0".repeat(32) + "-00f067aa0ba902b7-01")
                .build()
                .traceparent())
        .isNull();
    assertThat(aJob().build().toBuilder().traceparent("garbage").build().traceparent()).isNull();
    assertThat(
            aJob().build().toBuilder().traceparent(SUBMITTER.toUpperCase()).build().traceparent())
        .isEqualTo(SUBMITTER);
  }
}
