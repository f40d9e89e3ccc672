package io.punctual.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;

/**
 * A validated job ready to be stored. {@code requestHash} fingerprints the submitted body so that a
 * repeated idempotency key with a different body is told apart from a retry of the same request.
 */
public record NewJob(
    String namespace,
    String type,
    JsonNode payload,
    Instant runAt,
    Priority priority,
    int maxAttempts,
    Backoff backoff,
    Duration timeout,
    String idempotencyKey,
    String requestHash,
    List<String> tags,
    JsonNode callback,
    JobLinks links,
    String concurrencyKey,
    String traceparent) {

  public static final String DEFAULT_NAMESPACE = "default";

  public NewJob {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(runAt, "runAt");
    Objects.requireNonNull(priority, "priority");
    Objects.requireNonNull(backoff, "backoff");
    // Millisecond precision everywhere: Redis scores and the promoter's cursor are milliseconds.
    runAt = runAt.truncatedTo(ChronoUnit.MILLIS);
    tags = tags == null ? List.of() : List.copyOf(tags);
    links = links == null ? JobLinks.NONE : links;
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be >= 1");
    }
  }

  /**
   * This job with {@code key} as its concurrency key (what a limit may count instead of a payload
   * field).
   */
  public NewJob withConcurrencyKey(String key) {
    return toBuilder().concurrencyKey(key).build();
  }

  /** This job with {@code links} instead of its own. */
  public NewJob withLinks(JobLinks links) {
    return toBuilder().links(links).build();
  }

  /**
   * A new job of {@code type} in {@code namespace}, due at {@code runAt}; the rest defaults to an
   * empty payload, {@link Priority#NORMAL}, one attempt, {@link Backoff#DEFAULT}, no timeout, no
   * idempotency key, tags, callback, links or concurrency key.
   */
  public static Builder builder(String namespace, String type, Instant runAt) {
    return new Builder(namespace, type, runAt);
  }

  /** A builder holding this job's every field. */
  public Builder toBuilder() {
    return new Builder(namespace, type, runAt)
        .payload(payload)
        .priority(priority)
        .maxAttempts(maxAttempts)
        .backoff(backoff)
        .timeout(timeout)
        .idempotencyKey(idempotencyKey, requestHash)
        .tags(tags)
        .callback(callback)
        .links(links)
        .concurrencyKey(concurrencyKey)
        .traceparent(traceparent);
  }

  /** Builds a {@link NewJob}, field by field. */
  public static final class Builder {
    private String namespace;
    private String type;
    private Instant runAt;
    private JsonNode payload = JsonNodeFactory.instance.objectNode();
    private Priority priority = Priority.NORMAL;
    private int maxAttempts = 1;
    private Backoff backoff = Backoff.DEFAULT;
    private Duration timeout;
    private String idempotencyKey;
    private String requestHash;
    private List<String> tags = List.of();
    private JsonNode callback;
    private JobLinks links = JobLinks.NONE;
    private String concurrencyKey;
    private String traceparent;

    private Builder(String namespace, String type, Instant runAt) {
      this.namespace = namespace;
      this.type = type;
      this.runAt = runAt;
    }

    public Builder namespace(String namespace) {
      this.namespace = namespace;
      return this;
    }

    public Builder type(String type) {
      this.type = type;
      return this;
    }

    public Builder runAt(Instant runAt) {
      this.runAt = runAt;
      return this;
    }

    public Builder payload(JsonNode payload) {
      this.payload = payload;
      return this;
    }

    public Builder priority(Priority priority) {
      this.priority = priority;
      return this;
    }

    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
      return this;
    }

    public Builder backoff(Backoff backoff) {
      this.backoff = backoff;
      return this;
    }

    /** Null: the worker's {@code defaultTimeout}. */
    public Builder timeout(Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    /**
     * The idempotency key and the hash of the request it came with (a repeat with another request
     * under the same key is a conflict).
     */
    public Builder idempotencyKey(String idempotencyKey, String requestHash) {
      this.idempotencyKey = idempotencyKey;
      this.requestHash = requestHash;
      return this;
    }

    public Builder tags(List<String> tags) {
      this.tags = tags;
      return this;
    }

    public Builder callback(JsonNode callback) {
      this.callback = callback;
      return this;
    }

    public Builder links(JobLinks links) {
      this.links = links;
      return this;
    }

    /**
     * The W3C {@code traceparent} of what submitted the job (see {@link TraceParent}); null for
     * none. A value that is not one is dropped, as the W3C recommendation asks.
     */
    public Builder traceparent(String traceparent) {
      this.traceparent = TraceParent.validOrNull(traceparent);
      return this;
    }

    public Builder concurrencyKey(String concurrencyKey) {
      this.concurrencyKey = concurrencyKey;
      return this;
    }

    /**
     * The job.
     *
     * @throws NullPointerException without a namespace, type, payload, run time, priority or
     *     backoff
     * @throws IllegalArgumentException when {@code maxAttempts} is below 1
     */
    public NewJob build() {
      return new NewJob(
          namespace,
          type,
          payload,
          runAt,
          priority,
          maxAttempts,
          backoff,
          timeout,
          idempotencyKey,
          requestHash,
          tags,
          callback,
          links,
          concurrencyKey,
          traceparent);
    }
  }
}
