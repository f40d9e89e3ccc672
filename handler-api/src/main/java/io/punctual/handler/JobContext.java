package io.punctual.handler;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.model.FollowUpRules;
import io.punctual.model.Job;
import io.punctual.model.NewJob;
import io.punctual.model.Priority;
import io.punctual.model.Progress;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * What a handler knows about the attempt it runs. {@link #idempotencyKey()} is the same for every
 * attempt of a job, so a handler can pass it to downstream systems to make retries safe.
 */
public final class JobContext {
  private final Job job;
  private final String idempotencyKey;
  private final Instant deadline;
  private final BooleanSupplier cancelled;
  private final Clock clock;
  private final String traceparent;
  private final AttemptOutput output;
  private final List<NewJob> spawned = new ArrayList<>();
  private final AtomicInteger logged = new AtomicInteger();

  /** The longest log line kept, in characters; a longer one is cut there. */
  public static final int MAX_LOG_LINE = 4096;

  private JobContext(
      Job job,
      Instant deadline,
      BooleanSupplier cancelled,
      Clock clock,
      String traceparent,
      AttemptOutput output) {
    this.job = Objects.requireNonNull(job, "job");
    this.idempotencyKey =
        job.idempotencyKey() == null ? defaultIdempotencyKey(job.id()) : job.idempotencyKey();
    this.deadline = deadline;
    this.cancelled = Objects.requireNonNull(cancelled, "cancelled");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.traceparent = traceparent;
    this.output = Objects.requireNonNull(output, "output");
  }

  /**
   * The context of the current attempt of a claimed job; follow-up delays count from {@code clock}.
   *
   * @param deadline when the attempt will be interrupted for overrunning its timeout; null: never
   * @param cancelled whether the attempt should stop now
   */
  public static JobContext of(Job job, Instant deadline, BooleanSupplier cancelled, Clock clock) {
    return new JobContext(job, deadline, cancelled, clock, job.traceparent(), AttemptOutput.NONE);
  }

  /**
   * {@link #of(Job, Instant, BooleanSupplier, Clock)} within a trace: {@code traceparent} is the
   * attempt's own span (a child of the job's {@code traceparent}), what {@link #traceparent()}
   * gives and follow-ups carry.
   */
  public static JobContext of(
      Job job, Instant deadline, BooleanSupplier cancelled, Clock clock, String traceparent) {
    return new JobContext(job, deadline, cancelled, clock, traceparent, AttemptOutput.NONE);
  }

  /**
   * {@link #of(Job, Instant, BooleanSupplier, Clock, String)} whose {@link #progress} and {@link
   * #log} go to {@code output} (the worker's).
   */
  public static JobContext of(
      Job job,
      Instant deadline,
      BooleanSupplier cancelled,
      Clock clock,
      String traceparent,
      AttemptOutput output) {
    return new JobContext(job, deadline, cancelled, clock, traceparent, output);
  }

  /**
   * Reports how far this attempt got, from 0 to 100: {@code GET /jobs/{id}} shows the latest, and
   * the console a progress bar. Cheap: the worker stores the latest of each attempt in batches.
   *
   * @throws IllegalArgumentException outside 0 to 100
   */
  public void progress(double percent) {
    output.progress(job, Progress.percent(percent), clock.instant());
  }

  /**
   * Reports {@code done} of {@code total} (items, bytes): {@link #progress(double)} with the
   * counts.
   *
   * @throws IllegalArgumentException unless 0 <= done <= total and total > 0
   */
  public void progress(long done, long total) {
    output.progress(job, Progress.of(done, total), clock.instant());
  }

  /**
   * Adds a line to this attempt's log ({@code GET /jobs/{id}/logs}, the console's job page), with
   * the time it was logged. An attempt keeps its first {@code worker.logLinesPerAttempt} lines
   * (1,000 by default), each cut at {@link #MAX_LOG_LINE} characters; later lines are dropped and
   * this returns false. Never put secrets in it: whoever may read the job reads its log.
   */
  public boolean log(String line) {
    int seq = logged.incrementAndGet();
    if (seq > output.logLinesPerAttempt()) {
      logged.decrementAndGet();
      return false;
    }
    String text = line == null ? "null" : line;
    if (text.length() > MAX_LOG_LINE) {
      text = text.substring(0, MAX_LOG_LINE);
    }
    output.log(job, seq, text, clock.instant());
    return true;
  }

  /**
   * The W3C {@code traceparent} of this attempt, to send on with calls the handler makes (the
   * {@code http} handler does): the attempt's span when the worker traces, else the one the job was
   * submitted with; null when there is none.
   */
  public String traceparent() {
    return traceparent;
  }

  /** The key used when a job was submitted without one: stable across attempts. */
  public static String defaultIdempotencyKey(UUID jobId) {
    return "punctual:" + jobId;
  }

  public UUID jobId() {
    return job.id();
  }

  public String type() {
    return job.type();
  }

  public String namespace() {
    return job.namespace();
  }

  public JsonNode payload() {
    return job.payload();
  }

  /** 1 for the first attempt. */
  public int attempt() {
    return job.attempt();
  }

  public int maxAttempts() {
    return job.maxAttempts();
  }

  /** The job's own idempotency key, or {@code punctual:<jobId>}. */
  public String idempotencyKey() {
    return idempotencyKey;
  }

  public List<String> tags() {
    return job.tags() == null ? List.of() : job.tags();
  }

  /** The job's callback (e.g. {@code {"url": ..., "headers": {...}}}), or null. */
  public JsonNode callback() {
    return job.callback();
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
    Priority priority = job.priority() == null ? Priority.NORMAL : job.priority();
    NewJob next = followUp.toNewJob(job.namespace(), priority, clock.instant());
    if (traceparent != null) {
      next = next.toBuilder().traceparent(traceparent).build(); // it continues this trace
    }
    List<NewJob> withIt = new ArrayList<>(spawned);
    withIt.add(next);
    String problem = FollowUpRules.problem(job.id(), withIt, spawned.size());
    if (problem != null) {
      throw new InvalidFollowUpException(problem);
    }
    spawned.add(next);
    return spawned.size() - 1;
  }

  /** The follow-ups asked for so far. */
  public synchronized List<NewJob> spawned() {
    return List.copyOf(spawned);
  }
}
