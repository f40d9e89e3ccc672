package io.punctual.api.problem;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Refusals made by Jetty itself, before the application runs (a malformed request line or header,
 * an ambiguous URI, a URI or headers over the limit, a bad chunked body...), as problem+json
 * whatever the request's {@code Accept}. The detail is fixed per status: nothing of the request is
 * echoed back.
 */
public final class ProblemErrorHandler extends ErrorHandler {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpField CONTENT_TYPE =
      new HttpField(HttpHeader.CONTENT_TYPE, Problem.MEDIA_TYPE);

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    int status = response.getStatus();
    if (request.getAttribute(ERROR_EXCEPTION) instanceof HttpException http) {
      status = http.getCode();
    } else if (request.getAttribute(ERROR_STATUS) instanceof Integer code) {
      status = code;
    }
    if (status < 400 || status > 599) {
      status = 500;
    }
    response.setStatus(status);
    response.getHeaders().put(CONTENT_TYPE);
    response.getHeaders().put(ERROR_CACHE_CONTROL);
    response.write(true, ByteBuffer.wrap(body(status)), callback);
    return true;
  }

  /** The problem of a refusal with this status. */
  static Problem problemOf(int status) {
    String title = HttpStatus.getMessage(status);
    if (title == null || title.isBlank()) {
      title = "HTTP " + status;
    }
    String kind = title.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
    return Problem.of(status, kind, title, detailOf(status));
  }

  private static String detailOf(int status) {
    return switch (status) {
      case 400 -> "The request is not a well-formed HTTP request.";
      case 404 -> "No resource at this path.";
      case 405 -> "This resource does not support the request method.";
      case 413 -> "The request is larger than allowed.";
      case 414 -> "The request URI is longer than allowed.";
      case 415 -> "The request body's content type or encoding is not supported.";
      case 417 -> "Only Expect: 100-continue is supported.";
      case 431 -> "The request headers are larger than allowed.";
      default -> status >= 500 ? null : "The request was refused.";
    };
  }

  private static byte[] body(int status) {
    try {
      return JSON.writeValueAsBytes(problemOf(status));
    } catch (JsonProcessingException impossible) {
      return ("{\"type\":\"" + Problem.TYPE_PREFIX + "internal\",\"status\":" + status + "}")
          .getBytes(StandardCharsets.UTF_8);
    }
  }
}
