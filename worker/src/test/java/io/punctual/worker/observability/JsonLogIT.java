package io.punctual.worker.observability;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import ch.qos.logback.core.LayoutBase;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.logging.common.layout.DiscoverableLayoutFactory;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.handler.NonRetryableException;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.worker.WorkerHarness;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import java.time.Duration;
import java.util.List;
import java.util.TimeZone;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The JSON log layout of docs/observing.md ({@code layout: {type: json, flattenMdc: true}}) on the
 * log lines of a real worker: a job's lines carry its id, attempt, worker and namespace as fields.
 */
class JsonLogIT {
  /** The layout section as the docs show it (JSON is YAML; the YAML reader is not on this path). */
  private static final String LAYOUT = "{\"type\": \"json\", \"flattenMdc\": true}";

  private final WorkerHarness harness = new WorkerHarness();
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  private AppenderBase<ILoggingEvent> appender;

  @AfterEach
  void close() {
    harness.close();
    if (appender != null) {
      root.detachAppender(appender);
      appender.stop();
    }
  }

  @Test
  void aJobsLogLinesCarryItsIdAttemptWorkerAndNamespace() throws Exception {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    @SuppressWarnings("unchecked")
    DiscoverableLayoutFactory<ILoggingEvent> factory =
        Jackson.newObjectMapper().readValue(LAYOUT, DiscoverableLayoutFactory.class);
    LayoutBase<ILoggingEvent> layout = factory.build(context, TimeZone.getTimeZone("UTC"));
    layout.start();
    appender =
        new AppenderBase<>() {
          @Override
          protected void append(ILoggingEvent event) {
            lines.add(layout.doLayout(event));
          }
        };
    appender.setContext(context);
    appender.start();
    root.addAppender(appender);

    WorkerSettings settings = WorkerHarness.settings();
    settings.namespaces = List.of("billing");
    JobHandlers handlers = harness.builtIns(settings);
    handlers.register(
        new JobHandler() {
          @Override
          public String type() {
            return "reject";
          }

          @Override
          public JobResult handle(JobContext ctx) throws Exception {
            throw new NonRetryableException("invalid order");
          }
        });
    harness.start(settings, handlers);
    // A failed attempt is logged at INFO by the worker that finished it.
    Job job = harness.submit(aJob().namespace("billing").type("reject").build());
    harness.awaitState(job, JobState.FAILED);

    ObjectMapper json = new ObjectMapper();
    JsonNode event =
        await()
            .atMost(Duration.ofSeconds(5))
            .until(
                () ->
                    lines.stream()
                        .map(l -> read(json, l))
                        .filter(e -> job.id().toString().equals(e.path("job").asText()))
                        .findFirst()
                        .orElse(null),
                e -> e != null);

    assertThat(event.path("attempt").asText()).isEqualTo("1");
    assertThat(event.path("worker").asText()).isEqualTo(settings.workerId);
    assertThat(event.path("namespace").asText()).isEqualTo("billing");
    assertThat(event.path("type").asText()).isEqualTo("reject");
    assertThat(event.path("level").asText()).isNotEmpty();
    assertThat(event.path("message").asText()).contains(job.id().toString());
  }

  private static JsonNode read(ObjectMapper json, String line) {
    try {
      return json.readTree(line);
    } catch (Exception e) {
      throw new AssertionError("not one JSON object: " + line, e);
    }
  }
}
