package io.punctual.worker;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A tiny HTTP server on a free loopback port that records every request and answers with scripted
 * responses, in order (the last one repeats).
 */
public final class CallbackServer implements AutoCloseable {
  /** A request as received. */
  public record Request(Instant at, String method, Map<String, List<String>> headers, String body) {
    public String header(String name) {
      for (var e : headers.entrySet()) {
        if (e.getKey().equalsIgnoreCase(name)) {
          return e.getValue().get(0);
        }
      }
      return null;
    }
  }

  /** A scripted answer. */
  public record Response(int status, Map<String, String> headers, String body) {
    public static Response of(int status, String body) {
      return new Response(status, Map.of(), body);
    }
  }

  private final HttpServer server;
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final ConcurrentLinkedDeque<Response> script = new ConcurrentLinkedDeque<>();

  public CallbackServer(Response... responses) throws IOException {
    script.addAll(List.of(responses));
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  private void handle(HttpExchange exchange) throws IOException {
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    requests.add(
        new Request(
            Instant.now(),
            exchange.getRequestMethod(),
            Map.copyOf(exchange.getRequestHeaders()),
            body));
    Response r = script.size() > 1 ? script.pollFirst() : script.peekFirst();
    if (r == null) {
      r = Response.of(200, "");
    }
    r.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
    byte[] bytes = r.body().getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(r.status(), bytes.length == 0 ? -1 : bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
  }

  public List<Request> requests() {
    return requests;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
