package io.punctual.requests;

import java.util.List;

/** Some fields of a request are invalid: every one of them, each under its path. */
public final class InvalidFieldsException extends RequestRejectedException {
  private static final long serialVersionUID = 1L;
  private final transient List<FieldError> errors;

  public InvalidFieldsException(List<FieldError> errors) {
    super(describe(errors));
    if (errors.isEmpty()) {
      throw new IllegalArgumentException("no invalid field");
    }
    this.errors = List.copyOf(errors);
  }

  public InvalidFieldsException(String field, String message) {
    this(List.of(new FieldError(field, message)));
  }

  /** At least one. */
  public List<FieldError> errors() {
    return errors;
  }

  private static String describe(List<FieldError> errors) {
    return errors.isEmpty()
        ? "invalid request"
        : errors.get(0).field() + ": " + errors.get(0).message();
  }
}
