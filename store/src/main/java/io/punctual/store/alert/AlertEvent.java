package io.punctual.store.alert;

import java.util.Locale;
import java.util.Optional;

/**
 * What an alert rule watches ({@code when.event}), and which fields of {@code when} each kind
 * takes. The first four are written to the outbox by the step that makes them happen (a finish, a
 * rescue), in its transaction; the others are conditions the alerter's evaluator checks on every
 * pass (fire_time_missed: the fire times the planner recorded without a job).
 */
public enum AlertEvent {
  /** A job ended FAILED (its last attempt failed, or a rescue found none left). */
  JOB_FAILED,
  /** The last {@code count} jobs that ended all FAILED. */
  CONSECUTIVE_FAILURES,
  /** At least {@code percent} % of the jobs that ended within {@code window} FAILED. */
  FAILURE_RATE,
  /** An attempt ran past the job's timeout. */
  TIMED_OUT,
  /** An attempt ran longer than {@code threshold}. */
  DURATION_OVER,
  /** A schedule's fire time was missed, or skipped (overlap skip). */
  FIRE_TIME_MISSED,
  /** A job has been due for longer than {@code threshold} without starting. */
  WAITING_OVER,
  /** The namespace has due jobs and no live worker serves it. */
  NO_WORKER,
  /** The reaper took back a lost attempt (its worker gone). */
  ATTEMPTS_RESCUED;

  /** The name on the wire: {@code job_failed}. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<AlertEvent> fromWire(String name) {
    for (AlertEvent e : values()) {
      if (e.wireName().equals(name)) {
        return Optional.of(e);
      }
    }
    return Optional.empty();
  }

  /**
   * Whether the step that makes it happen writes it to the outbox (else the evaluator finds it).
   */
  public boolean writtenByTheHotPath() {
    return switch (this) {
      case JOB_FAILED, TIMED_OUT, DURATION_OVER, ATTEMPTS_RESCUED -> true;
      default -> false;
    };
  }

  /**
   * Whether its incidents clear when the condition is false again (else: when no new event came for
   * {@code alerts.resolveAfter}).
   */
  public boolean isCondition() {
    return switch (this) {
      case CONSECUTIVE_FAILURES, FAILURE_RATE, WAITING_OVER, NO_WORKER -> true;
      default -> false;
    };
  }

  /** Whether {@code when.<field>} applies to this kind ({@code event} always does). */
  public boolean takes(String field) {
    return switch (field) {
      case "type" -> this != FIRE_TIME_MISSED && this != NO_WORKER;
      case "scheduleId" -> this != WAITING_OVER && this != NO_WORKER && this != FAILURE_RATE;
      case "count" -> this == CONSECUTIVE_FAILURES;
      case "percent", "window" -> this == FAILURE_RATE;
      case "threshold" -> this == DURATION_OVER || this == WAITING_OVER;
      default -> false;
    };
  }

  /** Whether {@code when.<field>} must be given for this kind. */
  public boolean requires(String field) {
    return takes(field)
        && (field.equals("count")
            || field.equals("percent")
            || field.equals("window")
            || field.equals("threshold"));
  }
}
