package io.punctual.worker.handler.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.punctual.common.json.Json;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.handler.NonRetryableException;
import io.punctual.handler.RetryAfterException;
import io.punctual.outbound.OutboundResponse;
import io.punctual.outbound.address.ForbiddenAddressException;
import io.punctual.outbound.address.OutboundPolicy;
import io.punctual.outbound.config.HttpSettings;
import io.punctual.outbound.signing.WebhookSignature;
import io.punctual.outbound.signing.WebhookSigner;
import io.punctual.store.namespace.Egress;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.AbstractMap.SimpleEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import javax.net.ssl.SSLContext;

/**
 * {@code http}: POSTs the job's payload as JSON to {@code callback.url}, with {@code
 * callback.headers}. 2xx succeeds (its result is {@code {"status": n}}, or the JSON body itself
 * where the namespace keeps answers, with every value of {@code callback.headers} it repeats
 * hidden); 429 and 5xx are retried, honouring {@code Retry-After}; other statuses fail the job;
 * connection errors are retried.
 *
 * <p>Callbacks cannot be turned against the network Punctual runs in: every connection is checked
 * on the address it resolved to, at connect time, against what the job's namespace may reach
 * ({@link NamespaceCallbacks}: the deployment's {@code worker.http.allow} restricting the
 * namespace's egress grant); a refused address fails the attempt for good, with the address and
 * why. Redirects are followed hop by hop under the same check ({@link Redirects}); at most {@code
 * worker.http.maxResponseBytes} of an answer are read, and the whole exchange, redirects included,
 * gets {@code worker.http.requestTimeout} (or what is left of the job's timeout). What an endpoint
 * answered reaches {@code lastError} only as a short, sanitised {@link Excerpt}; a failed exchange
 * reaches it as the exception's class and message with every URL stripped of credentials, query and
 * fragment ({@link ScrubbedException}). Neither the values of {@code callback.headers} nor the
 * signing secrets are ever part of an error or a log line.
 *
 * <p>Each request is signed the Standard Webhooks way ({@link WebhookSignature}) with every secret
 * of the job's namespace: {@code webhook-id} is the job's id (the same for every attempt), {@code
 * webhook-timestamp} the clock's time of the request.
 */
public final class HttpHandler implements JobHandler, AutoCloseable {
  private static final Set<String> RESERVED =
      Set.of(
          "content-length",
          "host",
          "connection",
          "expect",
          "upgrade",
          "transfer-encoding",
          "te",
          "trailer",
          "keep-alive",
          "proxy-connection");

  /** Values this short are left alone: hiding them would garble answers more than it protects. */
  private static final int MIN_HIDDEN_LENGTH = 6;

  private final HttpSettings settings;
  private final NamespaceCallbacks callbacks;
  private final WebhookSigner signer;
  private final Clock clock;

  /**
   * What the handler asks of each job's namespace: {@code signer} signs the request with the
   * namespace's secrets; {@code egress} is the namespace's grant (what it may reach within {@code
   * worker.http.allow}, whether its answers are kept), read again every 5 s.
   */
  public record Tenancy(WebhookSigner signer, Function<String, Egress> egress) {}

  /**
   * The handler under {@code settings}; {@code tls} is whom HTTPS callbacks trust (null: the JDK's
   * default, its trust store and {@code javax.net.ssl.*} properties).
   */
  public HttpHandler(HttpSettings settings, Clock clock, Tenancy tenancy, SSLContext tls) {
    this.settings = settings;
    this.clock = clock;
    this.signer = tenancy.signer();
    this.callbacks = new NamespaceCallbacks(settings, tls, tenancy.egress(), clock);
  }

  @Override
  public String type() {
    return "http";
  }

  @Override
  public JobResult handle(JobContext ctx) throws Exception {
    NamespaceCallbacks.ForNamespace namespace = callbacks.of(ctx.namespace());
    OutboundPolicy policy = namespace.policy();
    URI url = callbackUrl(ctx, policy);
    String body = ctx.payload() == null ? "{}" : Json.write(ctx.payload());
    List<Map.Entry<String, String>> callbackHeaders = callbackHeaders(ctx);
    Instant deadline = clock.instant().plus(timeout(ctx));

    URI target = url;
    String method = "POST";
    String sending = body;
    for (int hop = 0; ; hop++) {
      List<Map.Entry<String, String>> headers = new ArrayList<>();
      if (sending != null) {
        headers.add(new SimpleEntry<>("Content-Type", "application/json"));
      }
      if (Redirects.sameOrigin(url, target)) {
        headers.addAll(callbackHeaders);
      }
      headers.addAll(ownHeaders(ctx, sending));
      OutboundResponse response;
      try {
        response = namespace.client().send(method, target, headers, sending, left(deadline));
      } catch (IOException e) {
        Optional<ForbiddenAddressException> forbidden = forbidden(e);
        if (forbidden.isPresent()) {
          throw refused(ctx, hop, target, forbidden.get().refusal(), e);
        }
        throw ScrubbedException.of(e);
      } catch (RuntimeException e) {
        // What the client refuses to send (a URL it cannot use) says so with the URL in it.
        throw ScrubbedException.of(e);
      }
      if (!Redirects.isRedirect(response)) {
        return interpret(response, callbackHeaders, namespace.keepResponse());
      }
      if (hop >= Redirects.MAX) {
        throw new NonRetryableException(
            "callback redirected more than " + Redirects.MAX + " times; not followed further");
      }
      target = Redirects.next(target, response);
      Optional<String> literal = policy.literalRefusal(target.getHost());
      if (literal.isPresent()) {
        throw refused(ctx, hop + 1, target, literal.get(), null);
      }
      if (!Redirects.keepsMethod(response.status())) {
        method = "GET";
        sending = null;
      }
    }
  }

  private static NonRetryableException refused(
      JobContext ctx, int hop, URI target, String why, Throwable cause) {
    String what =
        hop == 0
            ? "callback.url"
            : "callback.url redirected (hop "
                + hop
                + ") to "
                + Redirects.origin(target)
                + ", which";
    return new NonRetryableException(
        what
            + " resolves to "
            + why
            + "; namespace "
            + ctx.namespace()
            + " may reach it once an admin grants it (PUT /api/v1/namespaces/"
            + ctx.namespace()
            + "/egress), within "
            + OutboundPolicy.SETTING,
        cause == null ? null : ScrubbedException.of(cause));
  }

  private static Optional<ForbiddenAddressException> forbidden(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ForbiddenAddressException f) {
        return Optional.of(f);
      }
      for (Throwable s : t.getSuppressed()) {
        if (s instanceof ForbiddenAddressException f) {
          return Optional.of(f);
        }
      }
    }
    return Optional.empty();
  }

  /**
   * {@code callback.headers} that may be sent: the reserved ones are left out, bad ones refused.
   */
  private static List<Map.Entry<String, String>> callbackHeaders(JobContext ctx)
      throws NonRetryableException {
    List<Map.Entry<String, String>> out = new ArrayList<>();
    JsonNode headers = ctx.callback().get("headers");
    if (headers != null && headers.isObject()) {
      for (Map.Entry<String, JsonNode> h : headers.properties()) {
        String name = h.getKey();
        String value = h.getValue().asText();
        if (RESERVED.contains(name.toLowerCase(Locale.ROOT))) {
          continue;
        }
        if (!name.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")
            || !value.matches("[^\\x00-\\x08\\x0a-\\x1f\\x7f]*")) {
          throw new NonRetryableException("callback.headers." + name + " is not a valid header");
        }
        out.add(new SimpleEntry<>(name, value));
      }
    }
    return out;
  }

  /**
   * The job's headers and the Standard Webhooks ones, signing {@code body} (null: a GET after a
   * redirect, which signs the empty body it sends).
   */
  private List<Map.Entry<String, String>> ownHeaders(JobContext ctx, String body) {
    List<Map.Entry<String, String>> out = new ArrayList<>();
    String id = ctx.jobId().toString();
    out.add(new SimpleEntry<>("Punctual-Job-Id", id));
    out.add(new SimpleEntry<>("Punctual-Attempt", Integer.toString(ctx.attempt())));
    out.add(new SimpleEntry<>("Idempotency-Key", ctx.idempotencyKey()));
    if (ctx.traceparent() != null) {
      out.add(new SimpleEntry<>("traceparent", ctx.traceparent())); // the endpoint joins the trace
    }
    byte[] signed = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    out.addAll(signer.headers(ctx.namespace(), id, clock.instant(), signed));
    return out;
  }

  private Duration timeout(JobContext ctx) {
    Duration timeout = settings.requestTimeout;
    if (ctx.deadline() != null) {
      Duration left = Duration.between(clock.instant(), ctx.deadline());
      if (left.compareTo(timeout) < 0) {
        timeout = left;
      }
    }
    return timeout;
  }

  private Duration left(Instant deadline) {
    Duration left = Duration.between(clock.instant(), deadline);
    return left.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : left;
  }

  private URI callbackUrl(JobContext ctx, OutboundPolicy policy) throws NonRetryableException {
    JsonNode callback = ctx.callback();
    JsonNode url = callback == null ? null : callback.get("url");
    if (url == null || !url.isTextual() || url.asText().isBlank()) {
      throw new NonRetryableException("http job needs callback.url");
    }
    URI uri;
    try {
      uri = new URI(url.asText());
    } catch (URISyntaxException e) {
      // Not chained: the parser's message repeats the URL, credentials and all.
      throw new NonRetryableException("callback.url is not a valid URL");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (uri.getHost() == null || !(scheme.equals("http") || scheme.equals("https"))) {
      throw new NonRetryableException("callback.url must be an absolute http(s) URL");
    }
    if (uri.getRawUserInfo() != null) {
      // HTTP clients refuse it (RFC 9110 deprecates it), and it would be a secret in the URL.
      throw new NonRetryableException(
          "callback.url must not carry credentials (user:password@); send them in"
              + " callback.headers (Authorization)");
    }
    Optional<String> literal = policy.literalRefusal(uri.getHost());
    if (literal.isPresent()) {
      throw refused(ctx, 0, uri, literal.get(), null);
    }
    return uri;
  }

  /**
   * The job's end as {@code response} says it. A success's result is {@code {"status": n}}, or,
   * where the namespace keeps answers ({@code keep}), the answer's JSON. An error answer's excerpt,
   * and a kept answer, have every value of {@code sent} (the callback's headers) that they repeat
   * replaced by {@code (hidden)}: an endpoint that echoes the request does not put the job's
   * credentials into its result or {@code lastError}.
   */
  private JobResult interpret(
      OutboundResponse response, List<Map.Entry<String, String>> sent, boolean keep)
      throws Exception {
    int status = response.status();
    if (status >= 200 && status < 300) {
      if (!keep) {
        return JobResult.success(JsonNodeFactory.instance.objectNode().put("status", status));
      }
      return JobResult.success(
          response.truncated() ? null : jsonOrNull(withoutValues(response.body(), sent)));
    }
    String excerpt = Excerpt.of(withoutValues(response.body(), sent));
    String message = "callback answered HTTP " + status + (excerpt.isEmpty() ? "" : ": " + excerpt);
    if (status == 429 || status >= 500) {
      Optional<Duration> after =
          response.retryAfter().flatMap(v -> RetryAfter.parse(v, clock.instant()));
      if (after.isPresent()) {
        throw new RetryAfterException(after.get(), message);
      }
      throw new HttpStatusException(status, message);
    }
    throw new NonRetryableException(message);
  }

  private static String withoutValues(String body, List<Map.Entry<String, String>> sent) {
    if (body == null) {
      return null;
    }
    String out = body;
    for (Map.Entry<String, String> h : sent) {
      String value = h.getValue().strip();
      if (value.length() >= MIN_HIDDEN_LENGTH) {
        out = out.replace(value, "(hidden)");
        // The value as a JSON string would spell it (an echo in a JSON answer escapes it so).
        String escaped = Json.write(value);
        String inner = escaped.substring(1, escaped.length() - 1);
        if (!inner.equals(value)) {
          out = out.replace(inner, "(hidden)");
        }
      }
    }
    return out;
  }

  private static JsonNode jsonOrNull(String body) {
    if (body == null || body.isBlank()) {
      return null;
    }
    try {
      return Json.mapper().readTree(body);
    } catch (IOException e) {
      return null;
    }
  }

  @Override
  public void close() {
    callbacks.close();
  }
}
