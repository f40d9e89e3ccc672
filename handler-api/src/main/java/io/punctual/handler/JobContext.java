package io.punctual.handler;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.model.FollowUpRules;
import io.punctual.model.Job;
import io.punctual.model.NewJob;
import io.punctual.model.Priority;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * What a handler knows about the attempt it runs. {@link #idempotencyKey()} is the same for every
 * attempt of a job, so a handler can pass it to downstream systems to make retries safe.
 */
public final class JobContext {
  private final UUID jobId;
  private final String type;
  private final String namespace;
  private final JsonNode payload;
  private final int attempt;
  private final int maxAttempts;
  private final String idempotencyKey;
  private final List<String> tags;
  private final JsonNode callback;
  private final Instant deadline;
  private final BooleanSupplier cancelled;
  private final Priority priority;
  private final Clock clock;
  private final List<NewJob> spawned = new ArrayList<>();

  public JobContext(
      UUID jobId,
      String type,
      String namespace,
      JsonNode payload,
      int attempt,
      int maxAttempts,
      String idempotencyKey,
      List<String> tags,
      JsonNode callback,
      Instant deadline,
      BooleanSupplier cancelled,
      Priority priority,
      Clock clock) {
    this.jobId = Objects.requireNonNull(jobId, "jobId");
    this.type = Objects.requireNonNull(type, "type");
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    this.payload = payload;
    this.attempt = attempt;
    this.maxAttempts = maxAttempts;
    this.idempotencyKey = idempotencyKey == null ? defaultIdempotencyKey(jobId) : idempotencyKey;
    this.tags = tags == null ? List.of() : List.copyOf(tags);
    this.callback = callback;
    this.deadline = deadline;
    this.cancelled = Objects.requireNonNull(cancelled, "cancelled");
    this.priority = priority == null ? Priority.NORMAL : priority;
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * The context of the current attempt of a claimed job; follow-up delays count from {@code clock}.
   */
  public static JobContext of(Job job, Instant deadline, BooleanSupplier cancelled, Clock clock) {
    return new JobContext(
        job.id(),
        job.type(),
        job.namespace(),
        job.payload(),
        job.attempt(),
        job.maxAttempts(),
        job.idempotencyKey(),
        job.tags(),
        job.callback(),
        deadline,
        cancelled,
        job.priority(),
        clock);
  }

  /** The key used when a job was submitted without one: stable across attempts. */
  public static String defaultIdempotencyKey(UUID jobId) {
    return "punctual:" + jobId;
  }

  public UUID jobId() {
    return jobId;
  }

  public String type() {
    return type;
  }

  public String namespace() {
    return namespace;
  }

  public JsonNode payload() {
    return payload;
  }

  /** 1 for the first attempt. */
  public int attempt() {
    return attempt;
  }

  public int maxAttempts() {
    return maxAttempts;
  }

  /** The job's own idempotency key, or {@code punctual:<jobId>}. */
  public String idempotencyKey() {
    return idempotencyKey;
  }

  public List<String> tags() {
    return tags;
  }

  /** The job's callback (e.g. {@code {"url": ..., "headers": {...}}}), or null. */
  public JsonNode callback() {
    return callback;
  }

  /** When the attempt will be interrupted for overrunning its timeout; null: no timeout. */
  public Instant deadline() {
    return deadline;
  }

  /**
   * True once the attempt should stop: the job was cancelled (or taken away from this worker),
   * overran its timeout, or the worker is shutting down. The handler's thread is interrupted too.
   */
  public boolean isCancelled() {
    return cancelled.getAsBoolean();
  }

  /**
   * Asks for a follow-up job, stored atomically with this attempt's success (and only then); it
   * runs after this job, as its child. Returns its index, for {@link FollowUp#after(int,
   * io.punctual.model.RunCondition)} of a later follow-up.
   *
   * @throws InvalidFollowUpException if the follow-up can never be stored ({@link FollowUpRules}):
   *     it waits for a follow-up not spawned before it, for this job, or twice for one job, or
   *     repeats the idempotency key of an earlier follow-up. It is not kept; let it propagate and
   *     the job fails at once.
   */
  public synchronized int spawn(FollowUp followUp) {
    NewJob job = followUp.toNewJob(namespace, priority, clock.instant());
    List<NewJob> withIt = new ArrayList<>(spawned);
    withIt.add(job);
    String problem = FollowUpRules.problem(jobId, withIt, spawned.size());
    if (problem != null) {
      throw new InvalidFollowUpException(problem);
    }
    spawned.add(job);
    return spawned.size() - 1;
  }

  /** The follow-ups asked for so far. */
  public synchronized List<NewJob> spawned() {
    return List.copyOf(spawned);
  }
}
