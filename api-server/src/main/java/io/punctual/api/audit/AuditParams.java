package io.punctual.api.audit;

import io.punctual.api.config.ApiSettings;
import io.punctual.api.http.QueryParams;
import io.punctual.api.problem.Problems;
import io.punctual.requests.StorableText;
import io.punctual.store.AuditStore.Query;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** Turns the query parameters of {@code GET /audit} into a {@link Query}, or a 400 problem. */
final class AuditParams {
  private AuditParams() {}

  /** Longest namespace (the rule of the namespace header). */
  static final int MAX_NAMESPACE = 100;

  /** Longest action: a method and a route template are far shorter. */
  static final int MAX_ACTION = 200;

  /** {@code readable}: the namespaces the reader may see, null for all. */
  static Query parse(
      ApiSettings settings,
      List<String> readable,
      String from,
      String to,
      String namespace,
      String keyId,
      String action,
      String limit,
      String cursor) {
    Instant fromTime = QueryParams.time("from", from);
    Instant toTime = QueryParams.time("to", to);
    if (fromTime != null && toTime != null && !fromTime.isBefore(toTime)) {
      throw Problems.badParameter("from", "must be before to");
    }
    String ns = text("namespace", namespace, MAX_NAMESPACE);
    if (ns != null && readable != null && !readable.contains(ns)) {
      throw Problems.badParameter("namespace", "is not a namespace this key may read");
    }
    return new Query(
        fromTime,
        toTime,
        readable,
        ns,
        keyId(keyId),
        text("action", action, MAX_ACTION),
        AuditCursor.decode(cursor),
        QueryParams.limit(limit, settings));
  }

  private static UUID keyId(String value) {
    if (isBlank(value)) {
      return null;
    }
    try {
      String trimmed = value.trim();
      UUID id = UUID.fromString(trimmed);
      if (id.toString().equalsIgnoreCase(trimmed)) {
        return id;
      }
    } catch (IllegalArgumentException e) {
      // reported below
    }
    throw Problems.badParameter("keyId", "must be a key id (a UUID)");
  }

  private static String text(String name, String value, int maxLength) {
    if (isBlank(value)) {
      return null;
    }
    if (value.trim().length() > maxLength) {
      throw Problems.badParameter(name, "must be at most " + maxLength + " characters");
    }
    StorableText.problem(value)
        .ifPresent(
            problem -> {
              throw Problems.badParameter(name, problem);
            });
    return value.trim();
  }

  private static boolean isBlank(String value) {
    return value == null || value.isBlank();
  }
}
