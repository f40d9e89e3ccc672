package io.punctual.requests;

import java.util.ArrayList;
import java.util.List;

/** Collects every invalid field of a request so one answer names them all. */
public final class Violations {
  private final List<FieldError> errors = new ArrayList<>();

  public void add(String field, String message) {
    errors.add(new FieldError(field, message));
  }

  public boolean isEmpty() {
    return errors.isEmpty();
  }

  public int size() {
    return errors.size();
  }

  /** Rejects the request with every invalid field if anything was invalid. */
  public void throwIfAny() {
    if (!errors.isEmpty()) {
      throw new InvalidFieldsException(errors);
    }
  }
}
