package io.punctual.requests;

/**
 * A request body (a job, a workflow, a schedule; from HTTP or from configuration) that cannot be
 * accepted, field by field. The API answers it with a problem; the configuration check names the
 * setting.
 */
public abstract sealed class RequestRejectedException extends RuntimeException
    permits InvalidFieldsException, FieldTooLargeException {
  private static final long serialVersionUID = 1L;

  RequestRejectedException(String message) {
    super(message, null, false, false);
  }
}
