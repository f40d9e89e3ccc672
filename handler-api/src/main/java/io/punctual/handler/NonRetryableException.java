package io.punctual.handler;

/** Thrown by a handler to fail the job at once, whatever attempts remain. */
public class NonRetryableException extends Exception {
  private static final long serialVersionUID = 1L;

  public NonRetryableException(String message) {
    super(message);
  }

  public NonRetryableException(String message, Throwable cause) {
    super(message, cause);
  }
}
