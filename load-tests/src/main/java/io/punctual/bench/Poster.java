package io.punctual.bench;

import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.StringRequestContent;

/**
 * The submit benchmark's HTTP client: Jetty's, kept-alive connections, blocking sends from virtual
 * threads. The benchmark runs on the machine it measures, so what the client costs is taken from
 * the API: measured here, the JDK's {@code java.net.http.HttpClient} cost about 160 µs of CPU per
 * request, Jetty's about a third of that.
 */
final class Poster implements AutoCloseable {
  /** A status and, when it is not the expected one, the body (for the failure message). */
  record Answer(int status, String body) {}

  private final HttpClient client = new HttpClient();

  Poster(int maxConnections) throws Exception {
    client.setMaxConnectionsPerDestination(maxConnections);
    client.setMaxRequestsQueuedPerDestination(Math.max(1024, maxConnections * 4));
    client.setFollowRedirects(false);
    client.start();
  }

  Answer post(String url, String json) throws Exception {
    ContentResponse r =
        client
            .POST(url)
            .body(new StringRequestContent("application/json", json))
            .timeout(30, TimeUnit.SECONDS)
            .send();
    return new Answer(r.getStatus(), r.getContentAsString());
  }

  @Override
  public void close() throws Exception {
    client.stop();
  }
}
