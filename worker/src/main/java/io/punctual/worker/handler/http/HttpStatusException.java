package io.punctual.worker.handler.http;

/** A callback answered with a status that asks for a retry (429 or 5xx) and no Retry-After. */
public final class HttpStatusException extends Exception {
  private static final long serialVersionUID = 1L;

  private final int status;

  public HttpStatusException(int status, String message) {
    super(message);
    this.status = status;
  }

  public int status() {
    return status;
  }
}
