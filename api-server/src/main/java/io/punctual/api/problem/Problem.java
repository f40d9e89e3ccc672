package io.punctual.api.problem;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.punctual.requests.FieldError;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An RFC 9457 problem detail ({@code application/problem+json}). {@code field} names the first
 * offending field; {@code errors} lists every invalid field of a validation problem. {@code
 * headers} are extra response headers (e.g. {@code Retry-After}) and are not part of the body.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"type", "title", "status", "detail", "instance", "field", "errors"})
public record Problem(
    String type,
    String title,
    int status,
    String detail,
    String instance,
    String field,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<FieldError> errors,
    @JsonIgnore Map<String, String> headers) {

  public static final String MEDIA_TYPE = "application/problem+json";
  public static final String TYPE_PREFIX = "https://punctual.dev/problems/";

  public Problem {
    field = FieldPaths.printable(field);
    errors = errors == null ? List.of() : FieldPaths.printable(errors);
    headers = headers == null ? Map.of() : Map.copyOf(headers);
  }

  /** A problem of kind {@code kind} (the last segment of its type URI). */
  public static Problem of(int status, String kind, String title, String detail) {
    return new Problem(TYPE_PREFIX + kind, title, status, detail, null, null, null, null);
  }

  /** A validation problem: {@code field} is the first error's field. */
  public static Problem withErrors(
      int status, String kind, String title, String detail, List<FieldError> errors) {
    String first = errors.isEmpty() ? null : errors.get(0).field();
    return new Problem(TYPE_PREFIX + kind, title, status, detail, null, first, errors, null);
  }

  public Problem withField(String newField) {
    return new Problem(type, title, status, detail, instance, newField, errors, headers);
  }

  public Problem withInstance(String path) {
    return new Problem(type, title, status, detail, path, field, errors, headers);
  }

  public Problem withHeader(String name, String value) {
    Map<String, String> all = new LinkedHashMap<>(headers);
    all.put(name, value);
    return new Problem(type, title, status, detail, instance, field, errors, all);
  }
}
