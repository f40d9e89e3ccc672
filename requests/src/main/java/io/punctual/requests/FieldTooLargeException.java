package io.punctual.requests;

/** One field of a request (a job's payload) is larger than allowed. */
public final class FieldTooLargeException extends RequestRejectedException {
  private static final long serialVersionUID = 1L;
  private final String field;
  private final String detail;

  public FieldTooLargeException(String field, String detail) {
    super(field + ": " + detail);
    this.field = field;
    this.detail = detail;
  }

  public String field() {
    return field;
  }

  public String detail() {
    return detail;
  }
}
