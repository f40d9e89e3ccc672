package io.punctual.client;

import java.util.List;

/**
 * The API answered with an error: an RFC 9457 problem ({@code application/problem+json}). {@link
 * #field()} names the first offending field, {@link #errors()} lists them all for a validation
 * error.
 */
public final class PunctualApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** One invalid field of a request. */
  public record FieldError(String field, String message) {}

  private final int status;
  private final String type;
  private final String title;
  private final String detail;
  private final String field;
  private final transient List<FieldError> errors;

  public PunctualApiException(
      int status, String type, String title, String detail, String field, List<FieldError> errors) {
    super(
        status
            + " "
            + (title == null ? "" : title)
            + (detail == null ? "" : ": " + detail)
            + (field == null ? "" : " [" + field + "]"));
    this.status = status;
    this.type = type;
    this.title = title;
    this.detail = detail;
    this.field = field;
    this.errors = errors == null ? List.of() : List.copyOf(errors);
  }

  public int status() {
    return status;
  }

  /** The problem type URI, e.g. {@code https://punctual.dev/problems/invalid-request}. */
  public String type() {
    return type;
  }

  public String title() {
    return title;
  }

  public String detail() {
    return detail;
  }

  public String field() {
    return field;
  }

  public List<FieldError> errors() {
    return errors;
  }
}
