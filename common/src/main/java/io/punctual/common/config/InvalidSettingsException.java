package io.punctual.common.config;

import java.util.List;

/**
 * Settings that make no sense, every one of them: the message is the single error as it is, or one
 * line per error.
 */
public final class InvalidSettingsException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final List<String> errors;

  public InvalidSettingsException(List<String> errors) {
    super(message(errors));
    this.errors = List.copyOf(errors);
  }

  /** Each error, in the order found. */
  public List<String> errors() {
    return errors;
  }

  private static String message(List<String> errors) {
    if (errors.size() == 1) {
      return errors.get(0);
    }
    StringBuilder out = new StringBuilder().append(errors.size()).append(" settings are wrong:");
    for (String e : errors) {
      out.append("\n  - ").append(e);
    }
    return out.toString();
  }
}
