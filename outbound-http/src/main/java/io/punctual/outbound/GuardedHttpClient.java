package io.punctual.outbound;

import io.punctual.outbound.address.OutboundPolicy;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLContext;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.DefaultSchemePortResolver;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.DefaultHttpClientConnectionOperator;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy;
import org.apache.hc.client5.http.ssl.TlsSocketStrategy;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.config.RegistryBuilder;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.pool.PoolConcurrencyPolicy;
import org.apache.hc.core5.pool.PoolReusePolicy;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * Sends one callback request, and nothing else: every connection it opens is checked against the
 * {@link OutboundPolicy} on the address it resolved to ({@link GuardedDnsResolver}, {@link
 * GuardedSocketFactory}); it follows no redirect (the handler decides, hop by hop); it reads at
 * most {@code maxResponseBytes} of a body and drops the connection rather than read the rest; and
 * it gives up on the whole exchange once its time is up, however slowly the other side answers.
 * HTTPS verifies the certificate against the URL's host name (the JDK's trust store). Also the
 * alerter's client (alert webhooks reach receivers under the same guard).
 */
public final class GuardedHttpClient implements AutoCloseable {
  /** Connections the worker may keep open to callback hosts; its handlers run thousands at once. */
  private static final int MAX_CONNECTIONS = 4096;

  private final CloseableHttpClient client;
  private final int maxResponseBytes;
  private final ScheduledExecutorService deadlines;

  /**
   * {@code tls}: the trust to verify servers with; null for the JDK's default (its trust store,
   * {@code javax.net.ssl.*} properties). Either way the certificate must match the URL's host.
   */
  public GuardedHttpClient(
      OutboundPolicy policy,
      Duration connectTimeout,
      Duration readTimeout,
      int maxResponseBytes,
      SSLContext tls) {
    this.maxResponseBytes = maxResponseBytes;
    DefaultHttpClientConnectionOperator operator =
        new DefaultHttpClientConnectionOperator(
            new GuardedSocketFactory(policy),
            DefaultSchemePortResolver.INSTANCE,
            new GuardedDnsResolver(policy),
            RegistryBuilder.<TlsSocketStrategy>create()
                .register(
                    "https",
                    tls == null
                        ? DefaultClientTlsStrategy.createSystemDefault()
                        : new DefaultClientTlsStrategy(tls))
                .build());
    PoolingHttpClientConnectionManager connections =
        new PoolingHttpClientConnectionManager(
            operator,
            PoolConcurrencyPolicy.LAX,
            PoolReusePolicy.LIFO,
            TimeValue.ofMinutes(5),
            null);
    connections.setMaxTotal(MAX_CONNECTIONS);
    connections.setDefaultMaxPerRoute(MAX_CONNECTIONS);
    connections.setDefaultConnectionConfig(
        ConnectionConfig.custom()
            .setConnectTimeout(Timeout.of(connectTimeout))
            .setSocketTimeout(Timeout.of(readTimeout))
            .setValidateAfterInactivity(TimeValue.ofSeconds(2))
            .build());
    this.client =
        HttpClients.custom()
            .setConnectionManager(connections)
            .setDefaultRequestConfig(
                RequestConfig.custom().setResponseTimeout(Timeout.of(readTimeout)).build())
            .disableRedirectHandling()
            .disableAutomaticRetries()
            .disableCookieManagement()
            .disableAuthCaching()
            .disableContentCompression()
            .build();
    this.deadlines =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "punctual-callback-deadlines");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Sends {@code method} to {@code url} with {@code headers} (and {@code body} unless null), and
   * reads the answer, all within {@code timeout}.
   *
   * @throws HttpTimeoutException when the time is up
   * @throws io.punctual.outbound.address.ForbiddenAddressException when the URL's host resolves to
   *     a refused address (possibly as the cause of an {@link java.net.UnknownHostException})
   * @throws IOException when the exchange fails otherwise
   */
  public OutboundResponse send(
      String method,
      URI url,
      List<Map.Entry<String, String>> headers,
      String body,
      Duration timeout)
      throws IOException {
    HttpUriRequestBase request = new HttpUriRequestBase(method, url);
    for (Map.Entry<String, String> h : headers) {
      request.setHeader(h.getKey(), h.getValue());
    }
    if (body != null) {
      request.setEntity(
          new ByteArrayEntity(body.getBytes(StandardCharsets.UTF_8), ContentType.APPLICATION_JSON));
    }
    AtomicBoolean timedOut = new AtomicBoolean();
    ScheduledFuture<?> deadline =
        deadlines.schedule(
            () -> {
              timedOut.set(true);
              request.cancel();
            },
            timeout.toNanos(),
            TimeUnit.NANOSECONDS);
    try {
      ClassicHttpResponse response = client.executeOpen(null, request, null);
      OutboundResponse answer;
      try {
        answer = read(response);
      } catch (IOException | RuntimeException e) {
        request.cancel();
        closeQuietly(response);
        throw e;
      }
      if (answer.truncated()) {
        request.cancel(); // drops the connection instead of reading the rest
        closeQuietly(response);
      } else {
        response.close();
      }
      return answer;
    } catch (IOException e) {
      if (timedOut.get()) {
        HttpTimeoutException late =
            new HttpTimeoutException("callback took longer than " + timeout);
        late.initCause(e);
        throw late;
      }
      throw e;
    } finally {
      deadline.cancel(false);
    }
  }

  /** The status, the headers the handler reads, and at most {@code maxResponseBytes} of body. */
  private OutboundResponse read(ClassicHttpResponse response) throws IOException {
    HttpEntity entity = response.getEntity();
    byte[] bytes = new byte[0];
    boolean truncated = false;
    if (entity != null) {
      InputStream in = entity.getContent();
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] chunk = new byte[8192];
      int n;
      while (out.size() <= maxResponseBytes && (n = in.read(chunk)) >= 0) {
        out.write(chunk, 0, n);
      }
      bytes = out.toByteArray();
      if (bytes.length > maxResponseBytes) {
        truncated = true;
        bytes = Arrays.copyOf(bytes, maxResponseBytes);
      }
    }
    return new OutboundResponse(
        response.getCode(),
        header(response, "Retry-After"),
        header(response, "Location"),
        new String(bytes, StandardCharsets.UTF_8),
        truncated);
  }

  private static void closeQuietly(ClassicHttpResponse response) {
    try {
      response.close();
    } catch (IOException | RuntimeException e) {
      // the connection is being dropped on purpose
    }
  }

  private static Optional<String> header(ClassicHttpResponse response, String name) {
    Header h = response.getFirstHeader(name);
    return h == null ? Optional.empty() : Optional.ofNullable(h.getValue());
  }

  @Override
  public void close() throws IOException {
    deadlines.shutdownNow();
    client.close();
  }
}
