package io.punctual.deploy.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.trace.v1.Span;
import io.punctual.embedded.FreePorts;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dev} with the standard {@code OTEL_EXPORTER_OTLP_ENDPOINT} pointing at an OTLP/HTTP
 * receiver in this test (no outside collector): a job submitted over REST with a {@code
 * traceparent} header is run by the worker in a span of that trace, a child of the submitter's
 * span, exported over OTLP with the job's id and attempt.
 */
class TracingE2E {
  private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String SUBMITTER_SPAN = "00f067aa0ba902b7";

  @TempDir Path tmp;
  private final List<Span> received = new CopyOnWriteArrayList<>();
  private HttpServer receiver;
  private PunctualProcess dev;

  @AfterEach
  void close() {
    if (dev != null) {
      dev.close();
    }
    if (receiver != null) {
      receiver.stop(0);
    }
  }

  private int startReceiver() throws IOException {
    receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext(
        "/v1/traces",
        exchange -> {
          try (InputStream in = exchange.getRequestBody()) {
            ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(in);
            request.getResourceSpansList().stream()
                .flatMap(r -> r.getScopeSpansList().stream())
                .flatMap(s -> s.getSpansList().stream())
                .forEach(received::add);
          }
          byte[] answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
          exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
          exchange.sendResponseHeaders(200, answer.length);
          exchange.getResponseBody().write(answer);
          exchange.close();
        });
    receiver.start();
    return receiver.getAddress().getPort();
  }

  @Test
  void aJobsAttemptIsExportedAsAChildOfTheRequestThatSubmittedIt() throws Exception {
    int otlp = startReceiver();
    int http = FreePorts.pick();
    int admin = FreePorts.pick();
    Path dataDir = tmp.resolve("data");
    dev =
        PunctualProcess.start(
            tmp.resolve("dev.log"),
            Map.of(
                "PUNCTUAL_DATA_DIR",
                dataDir.toString(),
                "PUNCTUAL_HTTP_PORT",
                Integer.toString(http),
                "PUNCTUAL_ADMIN_PORT",
                Integer.toString(admin),
                "PUNCTUAL_BOOTSTRAP_KEY",
                "",
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                "http://127.0.0.1:" + otlp,
                "OTEL_EXPORTER_OTLP_PROTOCOL",
                "http/protobuf",
                "OTEL_BSP_SCHEDULE_DELAY",
                "100"),
            "dev",
            "--fresh");
    dev.awaitHealthy("http://127.0.0.1:" + admin + "/healthcheck", Duration.ofMinutes(2));
    String key = Files.readString(dataDir.resolve("admin.key")).strip();

    HttpResponse<String> submitted =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http + "/api/v1/jobs"))
                    .header("Authorization", "Bearer " + key)
                    .header("Content-Type", "application/json")
                    .header("traceparent", "00-" + TRACE + "-" + SUBMITTER_SPAN + "-01")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"type\":\"noop\"}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(submitted.statusCode()).as(submitted.body()).isEqualTo(201);
    String id = submitted.body().replaceAll(".*\"id\"\\s*:\\s*\"([^\"]+)\".*", "$1");

    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> received.stream().anyMatch(s -> hex(s.getTraceId().toByteArray()).equals(TRACE)));
    Span run =
        received.stream()
            .filter(s -> hex(s.getTraceId().toByteArray()).equals(TRACE))
            .findFirst()
            .orElseThrow();
    assertThat(run.getName()).isEqualTo("run noop");
    assertThat(hex(run.getParentSpanId().toByteArray())).isEqualTo(SUBMITTER_SPAN);
    assertThat(run.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_CONSUMER);
    assertThat(run.getAttributesList())
        .anySatisfy(
            a -> {
              assertThat(a.getKey()).isEqualTo("punctual.job.id");
              assertThat(a.getValue().getStringValue()).isEqualTo(id);
            });
  }

  private static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }
}
