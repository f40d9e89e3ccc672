package io.punctual.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Client of the Punctual REST API ({@code /api/v1}). Thread-safe; reuse one instance. Every call is
 * made in the client's namespace (header {@code Punctual-Namespace}). An error response throws
 * {@link PunctualApiException}; a transport failure throws {@link UncheckedIOException}.
 */
public final class PunctualClient {
  public static final String NAMESPACE_HEADER = "Punctual-Namespace";
  public static final String DEFAULT_NAMESPACE = "default";
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = ClientJson.MAPPER;

  private final HttpClient http;
  private final String apiUrl;
  private final String jobsUrl;
  private final String workflowsUrl;
  private final String namespace;

  private PunctualClient(HttpClient http, String apiUrl, String namespace) {
    this.http = http;
    this.apiUrl = apiUrl;
    this.jobsUrl = apiUrl + "/jobs";
    this.workflowsUrl = apiUrl + "/workflows";
    this.namespace = Objects.requireNonNull(namespace, "namespace");
  }

  /** A client of the server at {@code baseUrl} (e.g. {@code http://localhost:8080}). */
  public static PunctualClient create(URI baseUrl) {
    return create(baseUrl, DEFAULT_NAMESPACE);
  }

  public static PunctualClient create(URI baseUrl, String namespace) {
    HttpClient http =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(10))
            .followRedirects(HttpClient.Redirect.NORMAL)
            .build();
    return create(baseUrl, namespace, http);
  }

  /** A client using a caller-configured {@link HttpClient} (proxies, TLS, executor...). */
  public static PunctualClient create(URI baseUrl, String namespace, HttpClient http) {
    String base = baseUrl.toString();
    while (base.endsWith("/")) {
      base = base.substring(0, base.length() - 1);
    }
    return new PunctualClient(http, base + "/api/v1", namespace);
  }

  /** The same server, another namespace. */
  public PunctualClient withNamespace(String otherNamespace) {
    return new PunctualClient(http, apiUrl, otherNamespace);
  }

  public String namespace() {
    return namespace;
  }

  /** Submits one job; an idempotent repeat returns the job stored the first time. */
  public JobView submit(JobRequest job) {
    return send(post(jobsUrl, job), type(JobView.class));
  }

  /** Submits jobs atomically (all or none); the result is in the order given. */
  public List<JobView> submitBatch(List<JobRequest> jobs) {
    Items<JobView> items =
        send(post(jobsUrl + "/batch", Map.of("jobs", jobs)), itemsOf(JobView.class));
    return items.items();
  }

  public JobView get(String id) {
    return send(request(jobUrl(id)).GET(), type(JobView.class));
  }

  /** One page of jobs, newest scheduled first. */
  public JobPage list(ListQuery query) {
    String qs = query.toQueryString();
    return send(request(qs.isEmpty() ? jobsUrl : jobsUrl + "?" + qs).GET(), type(JobPage.class));
  }

  /** Cancels a pending or running job; a final job yields a 409 {@link PunctualApiException}. */
  public JobView cancel(String id) {
    return send(
        request(jobUrl(id) + "/cancel").POST(HttpRequest.BodyPublishers.noBody()),
        type(JobView.class));
  }

  /** Submits a workflow (all its jobs stored at once, or none). */
  public WorkflowView submitWorkflow(WorkflowRequest workflow) {
    return send(post(workflowsUrl, workflow), type(WorkflowView.class));
  }

  public WorkflowView getWorkflow(String id) {
    return send(request(workflowsUrl + "/" + encode(id)).GET(), type(WorkflowView.class));
  }

  /** Cancels every step of a workflow that is not final yet. */
  public WorkflowView cancelWorkflow(String id) {
    return send(
        request(workflowsUrl + "/" + encode(id) + "/cancel")
            .POST(HttpRequest.BodyPublishers.noBody()),
        type(WorkflowView.class));
  }

  /** The attempts of a job, first first. */
  public List<ExecutionView> executions(String id) {
    Items<ExecutionView> items =
        send(request(jobUrl(id) + "/executions").GET(), itemsOf(ExecutionView.class));
    return items.items();
  }

  /** The {@code {"items":[...]}} envelope. */
  record Items<T>(List<T> items) {
    Items {
      items = items == null ? List.of() : List.copyOf(items);
    }
  }

  private String jobUrl(String id) {
    return jobsUrl + "/" + encode(id);
  }

  private static String encode(String id) {
    String encoded = URLEncoder.encode(Objects.requireNonNull(id, "id"), StandardCharsets.UTF_8);
    return encoded.replace("+", "%20");
  }

  private HttpRequest.Builder request(String url) {
    return HttpRequest.newBuilder(URI.create(url))
        .timeout(REQUEST_TIMEOUT)
        .header("Accept", "application/json")
        .header(NAMESPACE_HEADER, namespace);
  }

  private HttpRequest.Builder post(String url, Object body) {
    byte[] bytes;
    try {
      bytes = JSON.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot write request as JSON: " + e.getMessage(), e);
    }
    return request(url)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(bytes));
  }

  private static JavaType type(Class<?> type) {
    return JSON.getTypeFactory().constructType(type);
  }

  private static JavaType itemsOf(Class<?> item) {
    return JSON.getTypeFactory().constructParametricType(Items.class, item);
  }

  private <T> T send(HttpRequest.Builder builder, JavaType type) {
    HttpResponse<byte[]> response;
    try {
      response = http.send(builder.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new InterruptedIOException("interrupted"));
    }
    if (response.statusCode() >= 300) {
      throw ResponseErrors.toException(response.statusCode(), response.body());
    }
    try {
      return JSON.readValue(response.body(), type);
    } catch (IOException e) {
      throw new UncheckedIOException("unreadable response from " + response.uri(), e);
    }
  }
}
