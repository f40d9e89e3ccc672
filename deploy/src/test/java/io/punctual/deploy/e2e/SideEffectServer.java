package io.punctual.deploy.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;

/**
 * The handlers' own side effects: the callback every {@code http} job of the fault suite posts to.
 * It records each call it answers with success, whichever worker made it and whether that worker is
 * still alive to hear the answer: that is the log a checker compares with PostgreSQL.
 *
 * <p>The payload says how to behave: {@code {"kind":"quick"}} succeeds at once; {@code
 * {"kind":"slow","ms":N}} succeeds after N ms; {@code {"kind":"flaky"}} answers 500 to attempt 1
 * and succeeds after. A success answers {@code {"attempt": n}}, which becomes the job's result.
 */
final class SideEffectServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One successful call: the job, the attempt that made it, when it completed. */
  record Effect(UUID jobId, int attempt, Instant at) {}

  private final HttpServer server;
  private final ConcurrentLinkedQueue<Effect> effects = new ConcurrentLinkedQueue<>();

  private SideEffectServer(HttpServer server) {
    this.server = server;
  }

  static SideEffectServer start() {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 200);
      SideEffectServer s = new SideEffectServer(server);
      server.createContext("/effect", s::handle);
      server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
      server.start();
      return s;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/effect";
  }

  List<Effect> effects() {
    return List.copyOf(effects);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (InputStream in = exchange.getRequestBody()) {
      JsonNode payload = JSON.readTree(in.readAllBytes());
      UUID jobId = UUID.fromString(exchange.getRequestHeaders().getFirst("Punctual-Job-Id"));
      int attempt = Integer.parseInt(exchange.getRequestHeaders().getFirst("Punctual-Attempt"));
      String kind = payload.path("kind").asText("quick");
      if (kind.equals("flaky") && attempt == 1) {
        answer(exchange, 500, "{\"error\":\"planned failure\"}");
        return;
      }
      if (kind.equals("slow")) {
        Thread.sleep(payload.path("ms").asLong(1000));
      }
      effects.add(new Effect(jobId, attempt, Instant.now()));
      answer(exchange, 200, "{\"attempt\":" + attempt + "}");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      answer(exchange, 503, "{}");
    } catch (RuntimeException e) {
      answer(exchange, 400, "{\"error\":\"bad callback\"}");
    }
  }

  private static void answer(HttpExchange exchange, int status, String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    try {
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    } catch (IOException e) {
      // the worker is gone (killed or paused past its timeout): the effect happened anyway
    } finally {
      exchange.close();
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
