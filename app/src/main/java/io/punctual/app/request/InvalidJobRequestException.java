package io.punctual.app.request;

/**
 * A job request that the API would refuse with a 422 (or 413): the message names the first field,
 * as the API's problem does ({@code "jobs[2].maxAttempts: must be between 1 and 100"}), and says
 * how many more were refused. Nothing was written.
 */
public final class InvalidJobRequestException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String field;

  public InvalidJobRequestException(String field, String message) {
    this(field, message, 1);
  }

  /** The first of {@code invalidFields} fields refused. */
  public InvalidJobRequestException(String field, String message, int invalidFields) {
    super(
        (field == null ? "" : field + ": ")
            + message
            + switch (invalidFields) {
              case 0, 1 -> "";
              case 2 -> " (and 1 more invalid field)";
              default -> " (and " + (invalidFields - 1) + " more invalid fields)";
            });
    this.field = field;
  }

  /**
   * The field's path in the request ({@code "backoff.factor"}, {@code "jobs[2].type"}); null when
   * the request as a whole is refused.
   */
  public String field() {
    return field;
  }
}
