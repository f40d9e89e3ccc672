package io.punctual.client;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** Turns an error response into a {@link PunctualApiException}. */
final class ResponseErrors {
  private static final int MAX_DETAIL = 500;

  private ResponseErrors() {}

  static PunctualApiException toException(int status, byte[] body) {
    if (body != null && body.length > 0) {
      try {
        Problem problem = ClientJson.MAPPER.readValue(body, Problem.class);
        if (problem.title() != null || problem.type() != null) {
          return problem.toException(status);
        }
      } catch (IOException notAProblem) {
        // fall through: not JSON (e.g. a proxy's HTML page)
      }
    }
    String text = body == null ? "" : new String(body, StandardCharsets.UTF_8);
    if (text.length() > MAX_DETAIL) {
      text = text.substring(0, MAX_DETAIL);
    }
    return new PunctualApiException(
        status, "about:blank", "HTTP " + status, text.isBlank() ? null : text, null, null);
  }
}
