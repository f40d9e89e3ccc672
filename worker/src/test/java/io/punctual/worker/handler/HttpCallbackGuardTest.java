package io.punctual.worker.handler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.punctual.common.json.Json;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobResult;
import io.punctual.handler.NonRetryableException;
import io.punctual.model.Backoff;
import io.punctual.model.Job;
import io.punctual.outbound.config.HttpSettings;
import io.punctual.store.namespace.Egress;
import io.punctual.worker.CallbackServer;
import io.punctual.worker.CallbackServer.Request;
import io.punctual.worker.CallbackServer.Response;
import io.punctual.worker.handler.http.Excerpt;
import io.punctual.worker.handler.http.HttpHandler;
import io.punctual.worker.run.TestJobs;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code http} handler's outbound guard against real servers on loopback: what the policy
 * refuses is refused on the resolved address (names, redirects), for good; what it allows works;
 * answers are capped in size and time.
 */
class HttpCallbackGuardTest {
  private final List<AutoCloseable> closing = new java.util.ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  private HttpHandler handler(String... allow) {
    HttpSettings http = new HttpSettings();
    http.connectTimeout = Duration.ofSeconds(2);
    http.requestTimeout = Duration.ofSeconds(5);
    http.allow = List.of(allow);
    HttpHandler handler =
        new HttpHandler(
            http,
            Clock.systemUTC(),
            TestSigning.tenancy(TestSigning.SIGNER, new Egress(List.of(allow), true)),
            null);
    closing.add(handler);
    return handler;
  }

  private static JobContext ctx(String url) {
    JsonNode callback =
        Json.readTree("{\"url\":\"" + url + "\",\"headers\":{\"X-Tenant\":\"acme\"}}");
    Job job =
        TestJobs.running("http", Json.readTree("{\"order\":42}"), 1, 3, Backoff.DEFAULT, callback);
    return JobContext.of(job, null, () -> false, Clock.systemUTC());
  }

  private CallbackServer server(Response... responses) throws IOException {
    CallbackServer server = new CallbackServer(responses);
    closing.add(server);
    return server;
  }

  /** A server on another loopback address (Linux routes all of 127.0.0.0/8 to lo). */
  private Counting serverOn(String address) throws IOException {
    Counting counting = new Counting(address);
    closing.add(counting);
    return counting;
  }

  private static int port(CallbackServer server) {
    return java.net.URI.create(server.url()).getPort();
  }

  @Test
  void aNameThatResolvesToLoopbackFailsForGoodWithTheAddressAndWhy() throws Exception {
    CallbackServer server = server(Response.of(200, "{}"));
    String url = "http://localhost:" + port(server) + "/hook";

    assertThatThrownBy(() -> handler().handle(ctx(url)))
        .isInstanceOf(NonRetryableException.class)
        .hasMessageMatching(
            "callback\\.url resolves to (127\\.0\\.0\\.1|0:0:0:0:0:0:0:1), a loopback address;"
                + " namespace default may reach it once an admin grants it \\(PUT"
                + " /api/v1/namespaces/default/egress\\), within worker\\.http\\.allow");
    assertThat(server.requests()).isEmpty();
  }

  @Test
  void aLiteralForbiddenAddressInAStoredJobIsRefusedWithoutConnecting() throws Exception {
    CallbackServer server = server(Response.of(200, "{}"));
    String url = "http://[::ffff:127.0.0.1]:" + port(server) + "/hook";

    assertThatThrownBy(() -> handler().handle(ctx(url)))
        .isInstanceOf(NonRetryableException.class)
        .hasMessage(
            "callback.url resolves to 127.0.0.1, a loopback address; namespace default may reach it once an admin"
                + " grants it (PUT /api/v1/namespaces/default/egress), within worker.http.allow");
    assertThat(server.requests()).isEmpty();
  }

  @Test
  void anAllowlistedTargetWorksByAddressAndByName() throws Exception {
    CallbackServer server = server(Response.of(200, "{\"ok\":true}"));

    assertThat(handler("127.0.0.1/32").handle(ctx(server.url())).result())
        .isEqualTo(Json.readTree("{\"ok\":true}"));
    String byName = "http://localhost:" + port(server) + "/hook";
    assertThat(handler("localhost").handle(ctx(byName)).result())
        .isEqualTo(Json.readTree("{\"ok\":true}"));
    assertThat(server.requests()).hasSize(2);
  }

  @Test
  void aRedirectToAForbiddenAddressIsRefused() throws Exception {
    Counting inside = serverOn("127.0.0.2");
    CallbackServer allowed =
        server(new Response(307, Map.of("Location", inside.url()), "elsewhere"));

    assertThatThrownBy(() -> handler("127.0.0.1/32").handle(ctx(allowed.url())))
        .isInstanceOf(NonRetryableException.class)
        .hasMessage(
            "callback.url redirected (hop 1) to http://127.0.0.2:"
                + inside.port()
                + ", which resolves to 127.0.0.2, a loopback address; namespace default may reach it once an admin"
                + " grants it (PUT /api/v1/namespaces/default/egress), within worker.http.allow");
    assertThat(allowed.requests()).hasSize(1);
    assertThat(inside.requests()).hasValue(0);
  }

  @Test
  void aRedirectToANameThatResolvesToAForbiddenAddressIsRefusedAtConnect() throws Exception {
    Counting allowed = serverOn("127.0.0.2");
    CallbackServer inside = server(Response.of(200, "{}"));
    allowed.redirectTo("http://localhost:" + port(inside) + "/admin");

    assertThatThrownBy(() -> handler("127.0.0.2/32").handle(ctx(allowed.url())))
        .isInstanceOf(NonRetryableException.class)
        .hasMessageMatching(
            "callback\\.url redirected \\(hop 1\\) to http://localhost:\\d+, which resolves to"
                + " (127\\.0\\.0\\.1|0:0:0:0:0:0:0:1), a loopback address; namespace default may reach it once an admin"
                + " grants it \\(PUT /api/v1/namespaces/default/egress\\), within"
                + " worker\\.http\\.allow");
    assertThat(allowed.requests()).hasValue(1);
    assertThat(inside.requests()).isEmpty();
  }

  @Test
  void allowedRedirectsAreFollowedAndCallbackHeadersStayWithTheirOrigin() throws Exception {
    CallbackServer target = server(Response.of(200, "{\"moved\":true}"));
    CallbackServer first = server(new Response(307, Map.of("Location", target.url()), ""));

    JobResult result = handler("127.0.0.1/32").handle(ctx(first.url()));

    assertThat(result.result()).isEqualTo(Json.readTree("{\"moved\":true}"));
    Request there = target.requests().get(0);
    assertThat(there.method()).isEqualTo("POST");
    assertThat(Json.readTree(there.body())).isEqualTo(Json.readTree("{\"order\":42}"));
    assertThat(there.header("Punctual-Job-Id")).isNotNull();
    assertThat(there.header("X-Tenant")).isNull();
    assertThat(first.requests().get(0).header("X-Tenant")).isEqualTo("acme");
  }

  @Test
  void seeOtherContinuesWithAGet() throws Exception {
    CallbackServer target = server(Response.of(204, ""));
    CallbackServer first = server(new Response(303, Map.of("Location", target.url()), ""));

    handler("127.0.0.1/32").handle(ctx(first.url()));

    assertThat(target.requests().get(0).method()).isEqualTo("GET");
    assertThat(target.requests().get(0).body()).isEmpty();
  }

  @Test
  void redirectsEndAfterFive() throws Exception {
    CallbackServer looping = server(new Response(302, Map.of("Location", "/again"), ""));

    assertThatThrownBy(() -> handler("127.0.0.1/32").handle(ctx(looping.url())))
        .isInstanceOf(NonRetryableException.class)
        .hasMessageContaining("redirected more than 5 times");
    assertThat(looping.requests()).hasSize(6);
  }

  @Test
  void anErrorAnswerReachesTheErrorOnlyAsAShortSanitisedExcerpt() throws Exception {
    String body = "secret\u001b[31m\r\nline2\u202e" + "x".repeat(10_000);
    CallbackServer server = server(Response.of(400, body));

    assertThatThrownBy(() -> handler("127.0.0.1/32").handle(ctx(server.url())))
        .isInstanceOfSatisfying(
            NonRetryableException.class,
            e -> {
              String prefix = "callback answered HTTP 400: ";
              assertThat(e.getMessage()).startsWith(prefix + "secret?[31m line2?xxx");
              assertThat(e.getMessage()).endsWith("...");
              assertThat(e.getMessage()).hasSize(prefix.length() + Excerpt.MAX + 3);
              assertThat(e.getMessage()).doesNotContain("\u001b", "\r", "\n", "\u202e");
            });
  }

  @Test
  void aLongSuccessfulAnswerIsNotReadPastTheCapAndStoresNoResult() throws Exception {
    String huge = "{\"data\":\"" + "y".repeat(4 * 1024 * 1024) + "\"}";
    CallbackServer server = server(Response.of(200, huge));

    JobResult result = handler("127.0.0.1/32").handle(ctx(server.url()));

    assertThat(result.result()).isNull();
  }

  @Test
  void anAnswerThatNeverEndsIsCutAtTheRequestTimeout() throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread.ofVirtual().start(() -> drip(listener));
      HttpSettings http = new HttpSettings();
      http.requestTimeout = Duration.ofSeconds(1);
      http.allow = List.of("127.0.0.1/32");
      HttpHandler handler = new HttpHandler(http, Clock.systemUTC(), TestSigning.LOOPBACK, null);
      closing.add(handler);
      String url = "http://127.0.0.1:" + listener.getLocalPort() + "/hook";

      long start = System.nanoTime();
      assertThatThrownBy(() -> handler.handle(ctx(url))).isInstanceOf(HttpTimeoutException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
    }
  }

  /** Answers 200 with a long body, one byte every 100 ms: each read succeeds, the whole never. */
  private static void drip(ServerSocket listener) {
    try (Socket s = listener.accept()) {
      s.getInputStream().read(new byte[8192]);
      OutputStream out = s.getOutputStream();
      out.write(
          "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      for (int i = 0; i < 100_000; i++) {
        out.write('z');
        out.flush();
        Thread.sleep(100);
      }
    } catch (IOException | InterruptedException e) {
      // the client went away, as it should
    }
  }

  /** A server on {@code address} that counts requests and answers 200, or redirects. */
  private static final class Counting implements AutoCloseable {
    private final HttpServer server;
    private final String address;
    private final AtomicInteger requests = new AtomicInteger();
    private volatile String location;

    Counting(String address) throws IOException {
      this.address = address;
      server = HttpServer.create(new InetSocketAddress(InetAddress.getByName(address), 0), 0);
      server.createContext(
          "/",
          exchange -> {
            requests.incrementAndGet();
            exchange.getRequestBody().readAllBytes();
            if (location != null) {
              exchange.getResponseHeaders().add("Location", location);
              exchange.sendResponseHeaders(307, -1);
            } else {
              exchange.sendResponseHeaders(200, -1);
            }
            exchange.close();
          });
      server.start();
    }

    void redirectTo(String url) {
      location = url;
    }

    int port() {
      return server.getAddress().getPort();
    }

    String url() {
      return "http://" + address + ":" + port() + "/hook";
    }

    AtomicInteger requests() {
      return requests;
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }
}
