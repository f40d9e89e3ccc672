package io.punctual.app.request;

/**
 * A job request that the API would refuse with a 422 (or 413): the message names the field, as the
 * API's problem does ({@code "jobs[2].maxAttempts: must be between 1 and 100"}). Nothing was
 * written.
 */
public final class InvalidJobRequestException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String field;

  public InvalidJobRequestException(String field, String message) {
    super(field + ": " + message);
    this.field = field;
  }

  /** The field's path in the request ({@code "backoff.factor"}, {@code "jobs[2].type"}). */
  public String field() {
    return field;
  }
}
