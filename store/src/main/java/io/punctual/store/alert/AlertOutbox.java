package io.punctual.store.alert;

import io.punctual.model.JobId;
import io.punctual.store.sql.SqlFiles;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes alert events of ended attempts (job_failed, timed_out, duration_over, attempts_rescued) to
 * the outbox ({@code alert_events}) inside the transaction of the step that ended them, so a row
 * exists exactly when that step committed. The alerter sends them later, in its own loop. A success
 * of a type whose incident is open (or whose event is not folded yet) writes a recovery row the
 * same way: the alerter clears the incident on it.
 *
 * <p>The hot path stays cheap without rules: which kinds of event any rule watches is kept here,
 * read again at most every {@link #REFRESH}, and a step whose endings no watched kind could match
 * runs no statement at all. A rule created on another process reaches this one within {@link
 * #REFRESH} (the API's own process at once, {@link #refresh()}).
 */
public final class AlertOutbox {
  private static final Logger log = LoggerFactory.getLogger(AlertOutbox.class);
  private static final SqlFiles SQL = new SqlFiles(AlertOutbox.class);

  /** How long the set of watched kinds is trusted before it is read again. */
  public static final Duration REFRESH = Duration.ofSeconds(5);

  private final Jdbi jdbi;
  private final Clock clock;
  private volatile Watched watched = new Watched(Set.of(), Instant.MIN);

  /**
   * An ended attempt: {@code failed} when its job is now FAILED, {@code succeeded} when it is now
   * SUCCEEDED (a recovery of its type for job_failed, timed_out and, within the threshold,
   * duration_over).
   */
  public record Ending(
      UUID jobId,
      int attempt,
      boolean failed,
      boolean succeeded,
      String executionStatus,
      long durationMs,
      String error) {}

  private record Watched(Set<AlertEvent> kinds, Instant readAt) {}

  public AlertOutbox(Jdbi jdbi, Clock clock) {
    this.jdbi = jdbi;
    this.clock = clock;
  }

  /** Reads the watched kinds again now (after a rule was created, changed or deleted here). */
  public void refresh() {
    Set<AlertEvent> kinds =
        jdbi.withHandle(
            h ->
                h.createQuery(SQL.get("events")).mapTo(String.class).stream()
                    .map(e -> AlertEvent.fromWire(e).orElseThrow())
                    .collect(Collectors.toUnmodifiableSet()));
    watched = new Watched(kinds, clock.instant());
  }

  /**
   * The kinds of event some rule watches (outside any transaction: call before the step's). A
   * failed read keeps the previous answer.
   */
  public Set<AlertEvent> watched() {
    Watched w = watched;
    Instant now = clock.instant();
    if (now.isBefore(w.readAt()) || !now.isBefore(w.readAt().plus(REFRESH))) {
      try {
        refresh();
      } catch (RuntimeException e) {
        log.warn("could not read which alert events rules watch: {}", e.toString());
        watched = new Watched(w.kinds(), now);
      }
    }
    return watched.kinds();
  }

  /**
   * Whether any rule watches one of the kinds the hot path writes (nothing else to do when not).
   */
  public static boolean anyHot(Set<AlertEvent> kinds) {
    for (AlertEvent k : kinds) {
      if (k.writtenByTheHotPath()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Inside the caller's transaction: the outbox rows of {@code endings} (attempts the caller's
   * guarded statement applied) for every matching rule, and the recovery rows of the succeeded ones
   * for rules with an incident (or an event not folded yet) of their type, one per rule and type.
   * Returns how many rows it wrote.
   */
  public static int afterEnded(Handle h, List<Ending> endings, Instant now) {
    if (endings.isEmpty()) {
      return 0;
    }
    int n = endings.size();
    UUID[] ids = new UUID[n];
    Long[] scheduledMs = new Long[n];
    Integer[] attempts = new Integer[n];
    Boolean[] failed = new Boolean[n];
    Boolean[] succeeded = new Boolean[n];
    String[] statuses = new String[n];
    Long[] durations = new Long[n];
    String[] errors = new String[n];
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (int i = 0; i < n; i++) {
      Ending e = endings.get(i);
      ids[i] = e.jobId();
      scheduledMs[i] = JobId.scheduledAt(e.jobId()).toEpochMilli();
      min = Math.min(min, scheduledMs[i]);
      max = Math.max(max, scheduledMs[i]);
      attempts[i] = e.attempt();
      failed[i] = e.failed();
      succeeded[i] = e.succeeded();
      statuses[i] = e.executionStatus();
      durations[i] = e.durationMs();
      errors[i] = e.error();
    }
    return h.createUpdate(SQL.get("afterEnded"))
        .bind("ids", ids)
        .bind("scheduledMs", scheduledMs)
        .bind("attempts", attempts)
        .bind("failed", failed)
        .bind("succeeded", succeeded)
        .bind("execStatuses", statuses)
        .bind("durationsMs", durations)
        .bind("errors", errors)
        .bind("minScheduled", Instant.ofEpochMilli(min))
        .bind("maxScheduled", Instant.ofEpochMilli(max))
        .bind("now", now)
        .execute();
  }
}
