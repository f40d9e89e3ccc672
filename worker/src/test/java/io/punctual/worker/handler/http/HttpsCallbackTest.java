package io.punctual.worker.handler.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.punctual.common.json.Json;
import io.punctual.handler.JobContext;
import io.punctual.model.Backoff;
import io.punctual.model.Job;
import io.punctual.outbound.config.HttpSettings;
import io.punctual.store.namespace.Egress;
import io.punctual.worker.handler.TestSigning;
import io.punctual.worker.run.TestJobs;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTPS callbacks through the guarded client still verify the server: its certificate must be
 * trusted and must name the URL's host. (A certificate for {@code localhost} only, trusted.)
 */
class HttpsCallbackTest {
  private static final char[] PASSWORD = "changeit".toCharArray();

  @TempDir Path dir;

  @Test
  void theCertificateMustNameTheHostOfTheUrl() throws Exception {
    KeyStore keys = selfSignedFor("localhost");
    SSLContext serverTls = SSLContext.getInstance("TLS");
    KeyManagerFactory km = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    km.init(keys, PASSWORD);
    serverTls.init(km.getKeyManagers(), null, null);
    SSLContext clientTls = SSLContext.getInstance("TLS");
    TrustManagerFactory tm =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tm.init(keys);
    clientTls.init(null, tm.getTrustManagers(), null);

    AtomicInteger requests = new AtomicInteger();
    HttpsServer server =
        HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(serverTls));
    server.createContext(
        "/",
        exchange -> {
          requests.incrementAndGet();
          exchange.getRequestBody().readAllBytes();
          byte[] body = "{\"secure\":true}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    HttpSettings http = new HttpSettings();
    http.connectTimeout = Duration.ofSeconds(2);
    http.requestTimeout = Duration.ofSeconds(5);
    http.allow = List.of("127.0.0.1/32", "localhost");
    try (HttpHandler handler =
        new HttpHandler(
            http,
            Clock.systemUTC(),
            TestSigning.tenancy(TestSigning.SIGNER, new Egress(http.allow, true)),
            clientTls)) {
      int port = server.getAddress().getPort();

      assertThat(handler.handle(ctx("https://localhost:" + port + "/hook")).result())
          .isEqualTo(Json.readTree("{\"secure\":true}"));
      assertThatThrownBy(() -> handler.handle(ctx("https://127.0.0.1:" + port + "/hook")))
          .isInstanceOf(SSLException.class)
          .hasMessageContaining("127.0.0.1");
      assertThat(requests).hasValue(1);
    } finally {
      server.stop(0);
    }
  }

  private static JobContext ctx(String url) {
    JsonNode callback = Json.readTree("{\"url\":\"" + url + "\"}");
    Job job = TestJobs.running("http", Json.readTree("{}"), 1, 3, Backoff.DEFAULT, callback);
    return JobContext.of(job, null, () -> false, Clock.systemUTC());
  }

  /** A key and a self-signed certificate whose only name is {@code dns}, made by keytool. */
  private KeyStore selfSignedFor(String dns) throws Exception {
    Path store = dir.resolve("keys.p12");
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    Process p =
        new ProcessBuilder(
                keytool.toString(),
                "-genkeypair",
                "-alias",
                "server",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=" + dns,
                "-ext",
                "SAN=dns:" + dns,
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                store.toString(),
                "-storepass",
                new String(PASSWORD),
                "-keypass",
                new String(PASSWORD))
            .redirectErrorStream(true)
            .start();
    String output =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(output).isZero();
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      keys.load(in, PASSWORD);
    }
    return keys;
  }
}
