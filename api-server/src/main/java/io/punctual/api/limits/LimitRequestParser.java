package io.punctual.api.limits;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.api.problem.Problems;
import io.punctual.requests.Fields;
import io.punctual.requests.Violations;
import io.punctual.store.limit.Limit;
import java.time.Duration;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The body of {@code PUT /api/v1/limits/{name}} (and of a limit declared under {@code limits} in
 * the configuration file): {@code type} (required), {@code key}, {@code concurrency}, {@code rate}
 * ({@code limit}, {@code period}, {@code burst}, which defaults to {@code limit}), {@code
 * slowKeyOnRetryAfter}; at least one of concurrency and rate. Every mistake is a 422 naming its
 * field.
 */
public final class LimitRequestParser {
  static final int MAX_CONCURRENCY = 10_000;
  static final int MAX_RATE = 1_000_000;
  static final int MAX_TYPE = 200;
  static final int MAX_KEY = 200;
  static final Duration MIN_PERIOD = Duration.ofMillis(1);
  static final Duration MAX_PERIOD = Duration.ofDays(1);

  private static final Pattern NAME = Pattern.compile("^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$");
  private static final Set<String> FIELDS =
      Set.of("type", "key", "concurrency", "rate", "slowKeyOnRetryAfter");
  private static final Set<String> RATE_FIELDS = Set.of("limit", "period", "burst");

  private LimitRequestParser() {}

  /** Whether {@code name} may name a limit (1 to 100 letters, digits, '.', '_', ':', '-'). */
  public static boolean isValidName(String name) {
    return name != null && NAME.matcher(name).matches();
  }

  /**
   * The limit {@code name} of {@code namespace} the body describes; field paths start with {@code
   * prefix} (empty for the API).
   */
  public static Limit parse(
      String namespace, String name, JsonNode body, String prefix, boolean declared) {
    ObjectNode object = Problems.requireObject(body, prefix);
    Violations violations = new Violations();
    Fields f = new Fields(object, prefix, violations);
    f.rejectUnknown(FIELDS);
    if (!isValidName(name)) {
      f.error(
          "name",
          "must be 1 to 100 letters, digits, '.', '_', ':' or '-', starting with a letter or digit");
    }
    String type = f.string("type", true, MAX_TYPE);
    String key = f.string("key", false, MAX_KEY);
    if (key != null && key.isBlank()) {
      f.error("key", "must not be blank (leave it out for one limit for the whole type)");
    }
    Integer concurrency = f.integer("concurrency", 1, MAX_CONCURRENCY);
    Limit.Rate rate = null;
    JsonNode r = f.get("rate");
    if (r != null && !r.isNull()) {
      if (r instanceof ObjectNode rateObject) {
        rate = rate(new Fields(rateObject, prefix + "rate.", violations));
      } else {
        f.error("rate", "must be an object");
      }
    }
    if (!f.has("concurrency") && (r == null || r.isNull())) {
      f.error("concurrency", "a limit needs concurrency, rate or both");
    }
    boolean slow = false;
    JsonNode s = f.get("slowKeyOnRetryAfter");
    if (s != null && !s.isNull()) {
      if (s.isBoolean()) {
        slow = s.booleanValue();
      } else {
        f.error("slowKeyOnRetryAfter", "must be true or false");
      }
    }
    violations.throwIfAny();
    return new Limit(namespace, name, type, key, concurrency, rate, slow, declared, null, null);
  }

  private static Limit.Rate rate(Fields f) {
    f.rejectUnknown(RATE_FIELDS);
    Integer limit = f.integer("limit", 1, MAX_RATE);
    if (!f.has("limit")) {
      f.error("limit", "is required");
    }
    Duration period = f.duration("period", true);
    if (!f.has("period")) {
      f.error("period", "is required (an ISO-8601 duration such as PT1S)");
    } else if (period != null
        && (period.compareTo(MIN_PERIOD) < 0 || period.compareTo(MAX_PERIOD) > 0)) {
      f.error("period", "must be between PT0.001S and P1D");
      period = null;
    }
    Integer burst = f.integer("burst", 1, MAX_RATE);
    if (limit == null || period == null || f.errorCount() > 0) {
      return null;
    }
    return new Limit.Rate(limit, period, burst == null ? limit : burst);
  }
}
