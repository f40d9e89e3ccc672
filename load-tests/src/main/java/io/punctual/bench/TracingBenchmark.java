package io.punctual.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.punctual.bench.ThroughputBenchmark.Servers;
import io.punctual.queue.Stores;
import io.punctual.worker.trace.AttemptTracing;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What tracing costs the drain (issue 34): N no-op jobs, each submitted with a {@code traceparent},
 * drained by the in-process worker with tracing off ({@link AttemptTracing#off()}, what a worker
 * without {@code OTEL_*} variables runs) and on (the SDK with its batch processor, exporting every
 * span over OTLP/HTTP to a receiver in this JVM that reads and drops the bodies), as alternated
 * pairs; the ratio of each pair (on over off: rate, CPU per job) and their median.
 *
 * <p>Usage: {@code TracingBenchmark [--jobs N] [--rounds R] [--json FILE]}; defaults 30,000 jobs, 8
 * rounds after a warm-up round that is not counted.
 */
public final class TracingBenchmark {
  private static final String TRACEPARENT =
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  private TracingBenchmark() {}

  public static void main(String[] args) throws Exception {
    int jobs = 30_000;
    int rounds = 8;
    Path json = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--jobs" -> jobs = Integer.parseInt(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--json" -> json = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    int n = jobs;
    int r = rounds;
    InProcessDrains.run("tracing", json, (stores, servers, out) -> run(stores, servers, n, r, out));
  }

  private static void run(Stores stores, Servers servers, int jobs, int rounds, ObjectNode out)
      throws Exception {
    AtomicLong exportedBytes = new AtomicLong();
    HttpServer receiver =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    receiver.createContext(
        "/v1/traces",
        exchange -> {
          try (InputStream in = exchange.getRequestBody()) {
            exportedBytes.addAndGet(in.readAllBytes().length);
          }
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    receiver.start();
    try {
      System.out.printf(
          Locale.ROOT,
          "tracing: %d jobs per drain, %d rounds after a warm-up; off, and on exporting over"
              + " OTLP/HTTP to a receiver in this JVM%n",
          jobs,
          rounds);
      String endpoint = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/v1/traces";
      InProcessDrains.alternatedPairs(
          rounds,
          on -> {
            if (!on) {
              return drain(stores, servers, jobs, AttemptTracing.off());
            }
            try (SdkTracerProvider provider =
                SdkTracerProvider.builder()
                    .addSpanProcessor(
                        BatchSpanProcessor.builder(
                                OtlpHttpSpanExporter.builder().setEndpoint(endpoint).build())
                            .build())
                    .build()) {
              return drain(
                  stores,
                  servers,
                  jobs,
                  AttemptTracing.on(
                      OpenTelemetrySdk.builder().setTracerProvider(provider).build()));
            }
          },
          out);
      System.out.printf(Locale.ROOT, "%d KB of spans exported%n", exportedBytes.get() / 1024);
      out.put("jobs", jobs);
      out.put("exportedBytes", exportedBytes.get());
    } finally {
      receiver.stop(0);
    }
  }

  private static ThroughputBenchmark.Drain drain(
      Stores stores, Servers servers, int jobs, AttemptTracing tracing) throws Exception {
    return InProcessDrains.drain(
        stores,
        servers,
        jobs,
        0,
        i ->
            BenchSupport.noop(Instant.now(), List.of()).toBuilder()
                .traceparent(TRACEPARENT)
                .build(),
        tracing);
  }
}
