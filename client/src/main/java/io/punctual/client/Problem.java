package io.punctual.client;

import java.util.List;

/** The body of an error response (RFC 9457), as the client reads it. */
record Problem(
    String type,
    String title,
    Integer status,
    String detail,
    String instance,
    String field,
    List<PunctualApiException.FieldError> errors) {

  PunctualApiException toException(int httpStatus) {
    return new PunctualApiException(
        status == null ? httpStatus : status, type, title, detail, field, errors);
  }
}
