package io.punctual.alerter;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real HTTP receiver on loopback that records what it gets. {@link #down()} closes its port (a
 * connection is refused), {@link #up()} listens on the same port again.
 */
final class Receiver implements AutoCloseable {
  record Received(Map<String, String> headers, String body) {
    String header(String name) {
      return headers.get(name.toLowerCase(java.util.Locale.ROOT));
    }
  }

  private final List<Received> received = new CopyOnWriteArrayList<>();
  private int port;
  private HttpServer server;

  Receiver() {
    up();
  }

  synchronized void up() {
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    server.createContext(
        "/",
        exchange -> {
          byte[] body;
          try (InputStream in = exchange.getRequestBody()) {
            body = in.readAllBytes();
          }
          Map<String, String> headers = new java.util.HashMap<>();
          exchange
              .getRequestHeaders()
              .forEach((k, v) -> headers.put(k.toLowerCase(java.util.Locale.ROOT), v.get(0)));
          received.add(new Received(headers, new String(body, StandardCharsets.UTF_8)));
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    server.start();
    port = server.getAddress().getPort();
  }

  synchronized void down() {
    server.stop(0);
  }

  String url(String path) {
    return "http://127.0.0.1:" + port + path;
  }

  List<Received> received() {
    return new ArrayList<>(received);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
