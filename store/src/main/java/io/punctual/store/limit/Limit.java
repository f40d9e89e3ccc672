package io.punctual.store.limit;

import java.time.Duration;
import java.time.Instant;

/**
 * A limit on the jobs of one type in a namespace: at most {@code concurrency} attempts RUNNING at
 * once and at most {@code rate} starts, per value of {@code key} (null: one limit for the whole
 * type; {@value #CONCURRENCY_KEY}: the job's own concurrencyKey; otherwise a top-level payload
 * field). {@code slowKeyOnRetryAfter}: a handler's Retry-After rests the whole key, not only its
 * job. {@code declared}: registered from the configuration file.
 */
public record Limit(
    String namespace,
    String name,
    String type,
    String key,
    Integer concurrency,
    Rate rate,
    boolean slowKeyOnRetryAfter,
    boolean declared,
    Instant createdAt,
    Instant updatedAt) {
  /** The key naming the job's own {@code concurrencyKey} field instead of a payload field. */
  public static final String CONCURRENCY_KEY = "concurrencyKey";

  /** At most {@code limit} starts per {@code period}, a bucket holding {@code burst}. */
  public record Rate(int limit, Duration period, int burst) {}
}
