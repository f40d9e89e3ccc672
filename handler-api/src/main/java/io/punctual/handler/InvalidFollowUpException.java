package io.punctual.handler;

/**
 * Thrown by {@link JobContext#spawn} for a follow-up that can never be stored: it waits for a
 * follow-up not spawned before it (an index out of range, itself, a later one: follow-ups cannot
 * wait for each other in a cycle), for the job that spawned it (its parent already) or twice for
 * the same job, or it repeats the idempotency key of an earlier follow-up of the attempt. The
 * follow-up is not kept. A programming error, so a handler that lets it propagate fails its job at
 * once, whatever attempts remain (like {@link NonRetryableException}): every retry would build the
 * same follow-ups.
 */
public final class InvalidFollowUpException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public InvalidFollowUpException(String message) {
    super(message);
  }
}
