package io.punctual.store;

import java.sql.SQLException;
import java.util.Optional;

/**
 * The store refused to store the follow-up jobs of a finish: an idempotency key already used with a
 * different request, a job to wait for that does not exist in the namespace, edges that do not make
 * a graph, a value a constraint rejects. Thrown inside the finish's transaction, so that it rolls
 * back; {@link JobTransitions#finish} then records the completion whose follow-ups these were as a
 * failed attempt. Not thrown for a failure of the database itself (connection, deadlock, timeout):
 * those leave the batch to be written again.
 */
final class FollowUpsRefusedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private FollowUpsRefusedException(String message, Throwable cause) {
    super(message, cause);
  }

  /** {@code e} as a refusal, if storing the follow-ups again would fail again the same way. */
  static Optional<FollowUpsRefusedException> of(RuntimeException e) {
    return switch (e) {
      case IdempotencyConflictException c ->
          Optional.of(
              new FollowUpsRefusedException(
                  "follow-up " + c.index() + ": " + c.getMessage() + " ('" + c.key() + "')", e));
      case UnknownUpstreamException u ->
          Optional.of(
              new FollowUpsRefusedException("follow-up " + u.index() + ": " + u.getMessage(), e));
      case IllegalArgumentException a ->
          Optional.of(new FollowUpsRefusedException(a.getMessage(), e));
      default -> refusedByConstraint(e);
    };
  }

  /** A data exception (SQLSTATE class 22) or an integrity constraint violation (class 23). */
  private static Optional<FollowUpsRefusedException> refusedByConstraint(RuntimeException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        String state = sql.getSQLState();
        if (state.startsWith("22") || state.startsWith("23")) {
          return Optional.of(new FollowUpsRefusedException(firstLine(sql.getMessage()), e));
        }
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "refused by the database";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
