package io.punctual.model;

import com.fasterxml.jackson.databind.JsonNode;
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
    String concurrencyKey) {

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

  /** A job without a concurrencyKey (the key a limit may use instead of a payload field). */
  public NewJob(
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
      JobLinks links) {
    this(
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
        null);
  }

  /** This job with its own key for limits ({@code "key": "concurrencyKey"}; null: none). */
  public NewJob withConcurrencyKey(String key) {
    return copy(links, key);
  }

  /** A job that belongs to no schedule or workflow. */
  public NewJob(
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
      JsonNode callback) {
    this(
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
        JobLinks.NONE);
  }

  /** This job, belonging to what {@code links} says. */
  public NewJob withLinks(JobLinks links) {
    return copy(links, concurrencyKey);
  }

  /**
   * This job with the fields a wither changes: the one place that lists every field, so a new field
   * is added here and in the record only.
   */
  private NewJob copy(JobLinks links, String concurrencyKey) {
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
        concurrencyKey);
  }
}
