package io.punctual.schedule.expression;

/**
 * A cron expression, time zone or interval that cannot be used; the message says why in words meant
 * for the user, without naming the field (the caller knows which field it read).
 */
public final class InvalidExpressionException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public InvalidExpressionException(String message) {
    super(message);
  }
}
