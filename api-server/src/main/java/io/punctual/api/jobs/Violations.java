package io.punctual.api.jobs;

import io.punctual.api.problem.FieldError;
import io.punctual.api.problem.Problems;
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

  /** Ends the request with a 422 problem if anything was invalid. */
  public void throwIfAny() {
    if (!errors.isEmpty()) {
      throw Problems.invalid(errors);
    }
  }
}
