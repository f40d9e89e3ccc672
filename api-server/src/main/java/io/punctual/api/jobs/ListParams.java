package io.punctual.api.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.http.QueryParams;
import io.punctual.api.problem.Problems;
import io.punctual.common.json.Json;
import io.punctual.model.JobState;
import io.punctual.requests.StorableText;
import io.punctual.requests.Violations;
import io.punctual.store.JobFilter;
import io.punctual.store.JobQueries.JobQuery;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

/**
 * Turns the query parameters of {@code GET /jobs} into a {@link JobQuery}, or a 400 problem; and
 * the same fields given as a bulk action's {@code filter} into a {@link JobFilter}, or a 422.
 */
public final class ListParams {
  /** The longest idempotency key or payload filter accepted (both are looked up, not stored). */
  static final int MAX_FILTER_CHARS = 4096;

  private ListParams() {}

  /** The filter fields as text, as a query string or a bulk body gives them. */
  public record FilterFields(
      String status,
      String type,
      String tag,
      String from,
      String to,
      String idempotencyKey,
      String payload) {}

  static JobQuery parse(
      String namespace, ApiSettings settings, FilterFields fields, String limit, String cursor) {
    JobFilter f = filter(namespace, fields, "", Problems::badParameter);
    return new JobQuery(
        f.namespace(),
        f.status(),
        f.type(),
        f.tag(),
        f.from(),
        f.to(),
        QueryParams.idCursor(cursor),
        QueryParams.limit(limit, settings),
        f.idempotencyKey(),
        f.payload());
  }

  /**
   * The filter of {@code fields}; a bad one is refused by {@code refusal(prefix + field, message)}.
   */
  public static JobFilter filter(
      String namespace,
      FilterFields fields,
      String prefix,
      BiFunction<String, String, RuntimeException> refusal) {
    Instant fromTime = time(prefix + "from", fields.from(), refusal);
    Instant toTime = time(prefix + "to", fields.to(), refusal);
    if (fromTime != null && toTime != null && !fromTime.isBefore(toTime)) {
      throw refusal.apply(prefix + "from", "must be before to");
    }
    return new JobFilter(
        namespace,
        status(prefix + "status", fields.status(), refusal),
        blankToNull(fields.type()),
        blankToNull(fields.tag()),
        fromTime,
        toTime,
        bounded(prefix + "idempotencyKey", blankToNull(fields.idempotencyKey()), refusal),
        payload(prefix + "payload", fields.payload(), refusal));
  }

  private static Instant time(
      String name, String value, BiFunction<String, String, RuntimeException> refusal) {
    try {
      return QueryParams.time(name, value);
    } catch (RuntimeException e) {
      if (isBlank(value)) {
        throw e;
      }
      throw refusal.apply(
          name, "must be an ISO-8601 date-time with offset such as 2030-01-01T09:00:00Z");
    }
  }

  private static JobState status(
      String name, String value, BiFunction<String, String, RuntimeException> refusal) {
    if (isBlank(value)) {
      return null;
    }
    try {
      return JobState.valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw refusal.apply(
          name,
          "must be one of "
              + Arrays.stream(JobState.values()).map(Enum::name).collect(Collectors.joining(", ")));
    }
  }

  /** A JSON object the payload must contain, as compact JSON text; null when absent. */
  private static String payload(
      String name, String value, BiFunction<String, String, RuntimeException> refusal) {
    if (isBlank(value)) {
      return null;
    }
    bounded(name, value, refusal);
    JsonNode node;
    try {
      node = Json.readTree(value);
    } catch (RuntimeException e) {
      node = null;
    }
    if (node == null || !node.isObject()) {
      throw refusal.apply(
          name, "must be a JSON object such as {\"customerId\":42} (URL-encoded in a query)");
    }
    // PostgreSQL's jsonb takes no NUL escape, no lone surrogate and no infinite number: refuse them
    // here rather than fail the statement
    Violations unstorable = new Violations();
    StorableText.check(node, "", unstorable);
    if (!unstorable.isEmpty()) {
      throw refusal.apply(
          name, "must not hold a NUL (\\u0000), a lone surrogate or a number JSON cannot hold");
    }
    return Json.write(node);
  }

  private static String bounded(
      String name, String value, BiFunction<String, String, RuntimeException> refusal) {
    if (value != null && value.length() > MAX_FILTER_CHARS) {
      throw refusal.apply(name, "must be at most " + MAX_FILTER_CHARS + " characters");
    }
    return value;
  }

  private static String blankToNull(String value) {
    return isBlank(value) ? null : value;
  }

  private static boolean isBlank(String value) {
    return value == null || value.isBlank();
  }
}
