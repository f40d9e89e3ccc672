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
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Client of the Punctual REST API ({@code /api/v1}: jobs, workflows, schedules, and with an admin
 * key namespaces and API keys), with {@link #awaitFinal} to wait for a job to end. Thread-safe;
 * reuse one instance. Every call is made in the client's namespace (header {@code
 * Punctual-Namespace}). An error response throws {@link PunctualApiException}; a transport failure
 * throws {@link UncheckedIOException}.
 */
public final class PunctualClient {
  public static final String NAMESPACE_HEADER = "Punctual-Namespace";
  public static final String DEFAULT_NAMESPACE = "default";
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = ClientJson.MAPPER;
  private static final Duration AWAIT_FIRST_PAUSE = Duration.ofMillis(50);
  private static final Duration AWAIT_LONGEST_PAUSE = Duration.ofSeconds(2);

  private final HttpClient http;
  private final String apiUrl;
  private final String jobsUrl;
  private final String workflowsUrl;
  private final String schedulesUrl;
  private final String namespace;
  private final String apiKey;

  private PunctualClient(HttpClient http, String apiUrl, String namespace, String apiKey) {
    this.http = http;
    this.apiKey = apiKey;
    this.apiUrl = apiUrl;
    this.jobsUrl = apiUrl + "/jobs";
    this.workflowsUrl = apiUrl + "/workflows";
    this.schedulesUrl = apiUrl + "/schedules";
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
    return new PunctualClient(http, base + "/api/v1", namespace, null);
  }

  /** The same server, another namespace. */
  public PunctualClient withNamespace(String otherNamespace) {
    return new PunctualClient(http, apiUrl, otherNamespace, apiKey);
  }

  /**
   * The same server and namespace, each request carrying {@code Authorization: Bearer <key>} (the
   * secret {@code POST /api/v1/keys} answered). A server with authentication on answers 401 to a
   * client without one.
   */
  public PunctualClient withApiKey(String key) {
    Objects.requireNonNull(key, "key");
    if (key.isBlank() || !key.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      throw new IllegalArgumentException("an API key is printable ASCII without spaces");
    }
    return new PunctualClient(http, apiUrl, namespace, key);
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
    return submitBatch(jobs, null);
  }

  /**
   * {@link #submit(JobRequest)} within the caller's trace: {@code traceparent} (W3C Trace Context,
   * e.g. from the current OpenTelemetry span; null: none) is kept with the job, whose attempts run
   * in spans of that trace when the workers trace.
   */
  public JobView submit(JobRequest job, String traceparent) {
    return send(traced(post(jobsUrl, job), traceparent), type(JobView.class));
  }

  /**
   * {@link #submitBatch(List)} within the caller's trace (see {@link #submit(JobRequest, String)}).
   */
  public List<JobView> submitBatch(List<JobRequest> jobs, String traceparent) {
    Items<JobView> items =
        send(
            traced(post(jobsUrl + "/batch", Map.of("jobs", jobs)), traceparent),
            itemsOf(JobView.class));
    return items.items();
  }

  private static HttpRequest.Builder traced(HttpRequest.Builder request, String traceparent) {
    return traceparent == null ? request : request.header("traceparent", traceparent);
  }

  public JobView get(String id) {
    return send(request(jobUrl(id)).GET(), type(JobView.class));
  }

  /**
   * Waits until the job is final (SUCCEEDED, FAILED, CANCELLED or SKIPPED) and returns it as it
   * ended. Reads it at once, then again after 50 ms, the pause growing by half each time up to 2 s
   * (never past the deadline, where it reads it one last time).
   *
   * @throws JobWaitTimeoutException when the job is not final after {@code timeout} (it goes on
   *     running; the exception carries the job as last read)
   * @throws InterruptedException when the waiting thread is interrupted (its interrupt status is
   *     cleared, as usual)
   * @throws PunctualApiException for an error response, e.g. 404 when there is no such job
   */
  public JobView awaitFinal(String id, Duration timeout)
      throws InterruptedException, JobWaitTimeoutException {
    Objects.requireNonNull(id, "id");
    if (Objects.requireNonNull(timeout, "timeout").isNegative()) {
      throw new IllegalArgumentException("timeout must not be negative: " + timeout);
    }
    long start = System.nanoTime();
    long deadline = start + saturatedNanos(timeout);
    long pauseNanos = AWAIT_FIRST_PAUSE.toNanos();
    while (true) {
      JobView job = getInterruptibly(id);
      if (job.status() != null && job.status().isFinal()) {
        return job;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new JobWaitTimeoutException(job, Duration.ofNanos(System.nanoTime() - start));
      }
      long pause = Math.min(pauseNanos, left);
      Thread.sleep(pause / 1_000_000, (int) (pause % 1_000_000));
      pauseNanos = Math.min(pauseNanos + pauseNanos / 2, AWAIT_LONGEST_PAUSE.toNanos());
    }
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE / 2;
    }
  }

  /** {@link #get}, with an interrupt during the request surfacing as InterruptedException. */
  private JobView getInterruptibly(String id) throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    try {
      return get(id);
    } catch (UncheckedIOException e) {
      if (e.getCause() instanceof InterruptedIOException && Thread.interrupted()) {
        InterruptedException interrupted =
            new InterruptedException("interrupted while reading a job");
        interrupted.initCause(e);
        throw interrupted;
      }
      throw e;
    }
  }

  /** One page of jobs, newest scheduled first. */
  public JobPage list(ListQuery query) {
    String qs = query.toQueryString();
    return send(request(qs.isEmpty() ? jobsUrl : jobsUrl + "?" + qs).GET(), type(JobPage.class));
  }

  /** Cancels a pending or running job; a final job yields a 409 {@link PunctualApiException}. */
  public JobView cancel(String id) {
    return send(action(jobUrl(id) + "/cancel", "POST"), type(JobView.class));
  }

  /** Submits a workflow (all its jobs stored at once, or none). */
  public WorkflowView submitWorkflow(WorkflowRequest workflow) {
    return submitWorkflow(workflow, null);
  }

  /**
   * {@link #submitWorkflow(WorkflowRequest)} within the caller's trace (see {@link
   * #submit(JobRequest, String)}): every step's attempts run in spans of that trace.
   */
  public WorkflowView submitWorkflow(WorkflowRequest workflow, String traceparent) {
    return send(traced(post(workflowsUrl, workflow), traceparent), type(WorkflowView.class));
  }

  public WorkflowView getWorkflow(String id) {
    return send(request(workflowsUrl + "/" + encode(id)).GET(), type(WorkflowView.class));
  }

  /**
   * Cancels every step of a workflow that is not final yet; a workflow whose steps are all final
   * yields a 409 {@link PunctualApiException}.
   */
  public WorkflowView cancelWorkflow(String id) {
    return send(
        action(workflowsUrl + "/" + encode(id) + "/cancel", "POST"), type(WorkflowView.class));
  }

  /** The attempts of a job, first first. */
  public List<ExecutionView> executions(String id) {
    Items<ExecutionView> items =
        send(request(jobUrl(id) + "/executions").GET(), itemsOf(ExecutionView.class));
    return items.items();
  }

  /**
   * A page of one attempt's log lines ({@code JobContext.log}): the latest attempt that logged any
   * when {@code attempt} is null, the lines after line {@code after} (0: from the first), at most
   * 1,000. Read again with {@link LogPage#next()} as {@code after} for the lines logged since.
   */
  public LogPage logs(String id, Integer attempt, int after) {
    String url = jobUrl(id) + "/logs?after=" + after;
    if (attempt != null) {
      url += "&attempt=" + attempt;
    }
    return send(request(url).GET(), type(LogPage.class));
  }

  // --- schedules

  /**
   * Creates a schedule. With an {@code initIdentifier} already registered in the namespace, returns
   * that schedule instead, updated to this request if it differs (static registration).
   */
  public ScheduleView createSchedule(ScheduleRequest schedule) {
    return send(post(schedulesUrl, schedule), type(ScheduleView.class));
  }

  public ScheduleView getSchedule(String id) {
    return send(request(scheduleUrl(id)).GET(), type(ScheduleView.class));
  }

  /** One page of the namespace's schedules by name; {@code cursor} null for the first page. */
  public SchedulePage listSchedules(int limit, String cursor) {
    String url = schedulesUrl + "?limit=" + limit;
    if (cursor != null) {
      url += "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8);
    }
    return send(request(url).GET(), type(SchedulePage.class));
  }

  /**
   * Replaces a schedule's definition; its occurrences not started yet are cancelled and planned
   * again under the new one.
   */
  public ScheduleView updateSchedule(String id, ScheduleRequest schedule) {
    byte[] bytes = json(schedule);
    return send(
        request(scheduleUrl(id))
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofByteArray(bytes)),
        type(ScheduleView.class));
  }

  /** Deletes a schedule; returns how many of its future jobs were cancelled. */
  public int deleteSchedule(String id) {
    Deleted deleted = send(action(scheduleUrl(id), "DELETE"), type(Deleted.class));
    return deleted.cancelledJobs();
  }

  /** Stops a schedule: nothing new runs, and its occurrences not started yet are cancelled. */
  public ScheduleView pauseSchedule(String id) {
    return send(action(scheduleUrl(id) + "/pause", "POST"), type(ScheduleView.class));
  }

  /** Starts a paused schedule again from its next fire time (what fell in the pause is not run). */
  public ScheduleView resumeSchedule(String id) {
    return send(action(scheduleUrl(id) + "/resume", "POST"), type(ScheduleView.class));
  }

  /** One run of the schedule's job now, outside its fire times; returns that job. */
  public JobView triggerSchedule(String id) {
    return send(action(scheduleUrl(id) + "/trigger", "POST"), type(JobView.class));
  }

  /** The next {@code count} fire times at or after {@code from} (null: now), UTC. */
  public List<Instant> previewSchedule(String id, int count, Instant from) {
    String url = scheduleUrl(id) + "/preview?count=" + count;
    if (from != null) {
      url += "&from=" + URLEncoder.encode(from.toString(), StandardCharsets.UTF_8);
    }
    Preview preview = send(request(url).GET(), type(Preview.class));
    return preview.fireTimes();
  }

  /** A page of the schedule's jobs, newest first; {@code status} and {@code cursor} may be null. */
  public JobPage scheduleJobs(String id, JobStatus status, int limit, String cursor) {
    StringBuilder url = new StringBuilder(scheduleUrl(id)).append("/jobs?limit=").append(limit);
    if (status != null) {
      url.append("&status=").append(status.name());
    }
    if (cursor != null) {
      url.append("&cursor=").append(URLEncoder.encode(cursor, StandardCharsets.UTF_8));
    }
    return send(request(url.toString()).GET(), type(JobPage.class));
  }

  // --- namespaces (changes need an admin key)

  /**
   * Creates a namespace of weight 1; {@code quota} null for no limit. A name taken already is a
   * 409.
   */
  public NamespaceView createNamespace(String name, NamespaceQuota quota) {
    return send(
        post(apiUrl + "/namespaces", new NewNamespace(name, quota, null)),
        type(NamespaceView.class));
  }

  /**
   * Creates a namespace of that weight (1 to 1000, else a 422 naming {@code weight}); {@code quota}
   * null for no limit. A name taken already is a 409.
   */
  public NamespaceView createNamespace(String name, NamespaceQuota quota, int weight) {
    return send(
        post(apiUrl + "/namespaces", new NewNamespace(name, quota, weight)),
        type(NamespaceView.class));
  }

  /** A namespace with its usage; 404 for a namespace this key may not act in. */
  public NamespaceView getNamespace(String name) {
    return send(request(namespaceUrl(name)).GET(), type(NamespaceView.class));
  }

  /** One page of the namespaces this key may act in, by name; {@code cursor} null for the first. */
  public NamespacePage listNamespaces(int limit, String cursor) {
    return send(
        request(pageUrl(apiUrl + "/namespaces", limit, cursor)).GET(), type(NamespacePage.class));
  }

  /** Replaces a namespace's quota as a whole (a limit left null is no limit). */
  public NamespaceView setNamespaceQuota(String name, NamespaceQuota quota) {
    return send(
        request(namespaceUrl(name) + "/quota")
            .header("Content-Type", "application/json")
            .PUT(
                HttpRequest.BodyPublishers.ofByteArray(
                    json(Objects.requireNonNull(quota, "quota")))),
        type(NamespaceView.class));
  }

  /**
   * Sets a namespace's weight, its share of the workers' free slots while other namespaces have due
   * jobs too: from 1 to 1000, else a 422 naming {@code weight}.
   */
  public NamespaceView setNamespaceWeight(String name, int weight) {
    return send(
        request(namespaceUrl(name) + "/weight")
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofByteArray(json(new Weight(weight)))),
        type(NamespaceView.class));
  }

  /** Refuses submits into the namespace from now on and stops workers claiming its jobs. */
  public NamespaceView deactivateNamespace(String name) {
    return send(action(namespaceUrl(name) + "/deactivate", "POST"), type(NamespaceView.class));
  }

  /** Takes submits into the namespace again. */
  public NamespaceView reactivateNamespace(String name) {
    return send(action(namespaceUrl(name) + "/reactivate", "POST"), type(NamespaceView.class));
  }

  // --- API keys (an admin key only)

  /** Creates a key; the answer holds its secret, which the API never shows again. */
  public CreatedKey createKey(KeyRequest key) {
    NewKey created = send(post(apiUrl + "/keys", key), type(NewKey.class));
    return new CreatedKey(created.view(), created.secret());
  }

  /** One page of keys (no secrets), oldest first; {@code cursor} null for the first page. */
  public KeyPage listKeys(int limit, String cursor) {
    return send(request(pageUrl(apiUrl + "/keys", limit, cursor)).GET(), type(KeyPage.class));
  }

  public KeyView getKey(String id) {
    return send(request(apiUrl + "/keys/" + encode(id)).GET(), type(KeyView.class));
  }

  /** Revokes a key: it stops working at once here and within {@code auth.cacheFor} elsewhere. */
  public void revokeKey(String id) {
    send(action(apiUrl + "/keys/" + encode(id), "DELETE"), null);
  }

  /** A namespace to create; {@code weight} null leaves it out (the server's default, 1). */
  record NewNamespace(String name, NamespaceQuota quota, Integer weight) {}

  record Weight(int weight) {}

  /** The answer to a key's creation: the key and, this once, its secret. */
  record NewKey(
      String id,
      String name,
      String prefix,
      KeyRole role,
      List<String> namespaces,
      Instant createdAt,
      Instant lastUsedAt,
      Instant expiresAt,
      String secret) {
    KeyView view() {
      return new KeyView(id, name, prefix, role, namespaces, createdAt, lastUsedAt, expiresAt);
    }

    @Override
    public String toString() {
      return "NewKey[" + view() + "]";
    }
  }

  private String namespaceUrl(String name) {
    return apiUrl + "/namespaces/" + encode(name);
  }

  private static String pageUrl(String url, int limit, String cursor) {
    String paged = url + "?limit=" + limit;
    return cursor == null
        ? paged
        : paged + "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8);
  }

  record Preview(List<Instant> fireTimes) {
    Preview {
      fireTimes = fireTimes == null ? List.of() : List.copyOf(fireTimes);
    }
  }

  record Deleted(String id, int cancelledJobs) {}

  private String scheduleUrl(String id) {
    String encoded = URLEncoder.encode(Objects.requireNonNull(id, "id"), StandardCharsets.UTF_8);
    return schedulesUrl + "/" + encoded.replace("+", "%20");
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
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(REQUEST_TIMEOUT)
            .header("Accept", "application/json")
            .header(NAMESPACE_HEADER, namespace);
    if (apiKey != null) {
      builder.header("Authorization", "Bearer " + apiKey);
    }
    return builder;
  }

  /**
   * A request without a body that changes something, still sent as JSON: a server with API keys
   * switched off takes such requests only with a JSON content type.
   */
  private HttpRequest.Builder action(String url, String method) {
    return request(url)
        .header("Content-Type", "application/json")
        .method(method, HttpRequest.BodyPublishers.noBody());
  }

  private static byte[] json(Object body) {
    try {
      return JSON.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot write request as JSON: " + e.getMessage(), e);
    }
  }

  private HttpRequest.Builder post(String url, Object body) {
    byte[] bytes = json(body);
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

  @SuppressWarnings("TypeParameterUnusedInFormals") // T is what `type` describes
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
    if (type == null) {
      return null; // an answer without a body (204)
    }
    try {
      return JSON.readValue(response.body(), type);
    } catch (IOException e) {
      throw new UncheckedIOException("unreadable response from " + response.uri(), e);
    }
  }
}
