package io.punctual.app.outbox;

/**
 * What one {@link OutboxRelay#runOnce()} did with the rows it took: forwarded (their jobs exist,
 * the rows are deleted), to be tried again later, or set aside for good (dead).
 */
public record RelayPass(int forwarded, int retried, int dead) {
  /** Rows taken in the pass. */
  public int taken() {
    return forwarded + retried + dead;
  }
}
