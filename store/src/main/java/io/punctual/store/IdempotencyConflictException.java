package io.punctual.store;

/** An idempotency key was reused with a different request (HTTP 409). */
public final class IdempotencyConflictException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int index;
  private final String key;

  public IdempotencyConflictException(int index, String key, String message) {
    super(message);
    this.index = index;
    this.key = key;
  }

  /** Position of the offending job in the submitted list (0 for a single submit). */
  public int index() {
    return index;
  }

  public String key() {
    return key;
  }
}
