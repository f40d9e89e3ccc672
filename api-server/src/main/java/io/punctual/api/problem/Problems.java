package io.punctual.api.problem;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.requests.FieldError;
import io.punctual.requests.FieldTooLargeException;
import io.punctual.requests.InvalidFieldsException;
import io.punctual.requests.RequestRejectedException;
import io.punctual.requests.StorableText;
import java.util.List;

/** The problems the API answers with, one factory per kind. */
public final class Problems {
  private Problems() {}

  /** 422: the request is well-formed JSON but some fields are invalid. */
  public static ProblemException invalid(List<FieldError> fieldErrors) {
    List<FieldError> errors = FieldPaths.printable(fieldErrors);
    String detail =
        errors.size() == 1
            ? (errors.get(0).field() == null ? "" : errors.get(0).field() + ": ")
                + errors.get(0).message()
            : errors.size() + " invalid fields, first " + errors.get(0).field();
    return new ProblemException(
        Problem.withErrors(422, "invalid-request", "Invalid request", detail, errors));
  }

  public static ProblemException invalid(String field, String message) {
    return invalid(List.of(new FieldError(field, message)));
  }

  /**
   * What a request parser rejected: 422 naming every invalid field, or 413 for a field too large.
   */
  public static ProblemException rejected(RequestRejectedException rejected) {
    return switch (rejected) {
      case InvalidFieldsException e -> invalid(e.errors());
      case FieldTooLargeException e -> tooLarge(e.field(), e.detail());
    };
  }

  /** 400: a query parameter or header is unusable. */
  public static ProblemException badParameter(String parameter, String message) {
    return badParameters(List.of(new FieldError(parameter, message)));
  }

  /** 400: query parameters that are unusable together; {@code field} is the first one. */
  public static ProblemException badParameters(List<FieldError> errors) {
    FieldError first = errors.get(0);
    return new ProblemException(
        Problem.withErrors(
            400,
            "invalid-parameter",
            "Invalid parameter",
            first.field() + ": " + first.message(),
            errors));
  }

  /** 400: the body is not JSON; {@code pointer} locates the error when known. */
  public static Problem invalidJson(String detail, String pointer) {
    return Problem.of(400, "invalid-json", "Malformed JSON", detail).withField(pointer);
  }

  /** A 400 for a request without a body. */
  public static void requireBody(JsonNode body) {
    if (body == null || body.isMissingNode()) {
      throw new ProblemException(
          invalidJson("The request body is empty; a JSON object is required.", null));
    }
  }

  /**
   * The body as a JSON object: a 400 without one, a 413 or 422 for text PostgreSQL cannot store
   * ({@link StorableText}), a 422 naming {@code prefix} (empty: the body) when it is not an object.
   */
  public static ObjectNode requireObject(JsonNode body, String prefix) {
    requireBody(body);
    StorableText.require(body, prefix);
    if (!(body instanceof ObjectNode object)) {
      throw invalid(prefix.isEmpty() ? null : prefix, "must be a JSON object");
    }
    return object;
  }

  /** 413: a field (or, with {@code field} null, the whole body) is larger than allowed. */
  public static ProblemException tooLarge(String field, String detail) {
    Problem problem = Problem.of(413, "payload-too-large", "Request too large", detail);
    return new ProblemException(field == null ? problem : problem.withField(field));
  }

  /**
   * 401: no usable API key. {@code invalidToken}: a key was presented but is not valid (RFC 6750's
   * {@code error="invalid_token"}).
   */
  public static ProblemException unauthorized(String detail, boolean invalidToken) {
    return new ProblemException(
        Problem.of(401, "unauthorized", "Unauthorized", detail)
            .withHeader(
                "WWW-Authenticate",
                invalidToken
                    ? "Bearer realm=\"punctual\", error=\"invalid_token\""
                    : "Bearer realm=\"punctual\""));
  }

  /** 403: the key is valid but may not do this; {@code field} names what it may not use. */
  public static ProblemException forbidden(String detail, String field) {
    return new ProblemException(Problem.of(403, "forbidden", "Forbidden", detail).withField(field));
  }

  public static ProblemException notFound(String detail) {
    return new ProblemException(Problem.of(404, "not-found", "Not found", detail));
  }

  /** 409: the request conflicts with the job's current state or an earlier request. */
  public static ProblemException conflict(String kind, String title, String detail, String field) {
    return new ProblemException(Problem.of(409, kind, title, detail).withField(field));
  }

  /**
   * 422: PostgreSQL cancelled the request's statement at {@code api.statementTimeout} (SQLSTATE
   * 57014): the request asks for more than it may, and says how to ask for less. {@code field}: the
   * parameter that narrows it best ({@code from}), or null.
   */
  public static ProblemException queryTooBroad(String field) {
    return new ProblemException(
        Problem.of(
                422,
                "query-too-broad",
                "Query too broad",
                "The store stopped this request at the API's statement timeout"
                    + " (api.statementTimeout): narrow it, with a shorter from/to range or more"
                    + " filters (status, type, tag), and send it again.")
            .withField(field));
  }

  /** 503: a store is unreachable; the client should retry later. */
  public static Problem unavailable(String detail, int retryAfterSeconds) {
    return Problem.of(503, "unavailable", "Service unavailable", detail)
        .withHeader("Retry-After", Integer.toString(retryAfterSeconds));
  }

  /** 500: nothing about the cause leaks to the client. */
  public static Problem internal(String errorId) {
    return Problem.of(
        500,
        "internal",
        "Internal server error",
        "An unexpected error occurred; reference " + errorId + " in the server log.");
  }
}
