package io.punctual.requests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Iterator;
import java.util.Set;

/**
 * Reads the fields of one JSON object, each error recorded under the field's full path ({@code
 * prefix + name}). A JSON {@code null} counts as absent. Every getter returns null when the field
 * is absent or invalid.
 */
public final class Fields {
  /**
   * The latest time any field takes: a bound of the product, kept where the API first put it. Job
   * ids could carry times to the year 10889 (48 bits of milliseconds), and PostgreSQL's {@code
   * punctual_ms} (epoch milliseconds to timestamptz) is exact for all of them since V20. V1's went
   * through a double: from the year 2242 on, some times were stored a few microseconds off the id's
   * time and such a job was no longer found by its id (a 404 right after its 201); this bound, once
   * thought to keep clear of that (it was put below 4146, where every second time drifted), did
   * not.
   */
  public static final Instant LATEST = Instant.parse("4000-01-01T00:00:00Z");

  /**
   * The longest duration any field takes (1000 years of 365 days): whatever is computed from it (a
   * timeout in milliseconds, a fire time, a retry time) stays far inside {@code long} and {@link
   * Instant}.
   */
  public static final Duration MAX_DURATION = Duration.ofDays(365L * 1000);

  /** The error for a duration above {@link #MAX_DURATION}. */
  public static final String TOO_LONG = "must be at most P365000D (1000 years)";

  private final ObjectNode node;
  private final String prefix;
  private final Violations violations;

  public Fields(ObjectNode node, String prefix, Violations violations) {
    this.node = node;
    this.prefix = prefix;
    this.violations = violations;
  }

  /** Where this request's errors are collected (for fields nested below this object). */
  public Violations violations() {
    return violations;
  }

  public String path(String name) {
    return prefix + name;
  }

  public void error(String name, String message) {
    violations.add(path(name), message);
  }

  /** Errors recorded so far (in the whole request, not just this object). */
  public int errorCount() {
    return violations.size();
  }

  public boolean has(String name) {
    JsonNode value = node.get(name);
    return value != null && !value.isNull();
  }

  public JsonNode get(String name) {
    JsonNode value = node.get(name);
    return value == null || value.isNull() ? null : value;
  }

  public void rejectUnknown(Set<String> known) {
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!known.contains(name)) {
        error(name, "is not a known field");
      }
    }
  }

  public String string(String name, boolean required, int maxLength) {
    JsonNode value = get(name);
    if (value == null) {
      if (required) {
        error(name, "is required");
      }
      return null;
    }
    if (!value.isTextual()) {
      error(name, "must be a string");
      return null;
    }
    String text = value.textValue();
    if (text.isBlank()) {
      error(name, "must not be blank");
      return null;
    }
    if (text.length() > maxLength) {
      error(name, "must be at most " + maxLength + " characters");
      return null;
    }
    return text;
  }

  public Integer integer(String name, int min, int max) {
    JsonNode value = get(name);
    if (value == null) {
      return null;
    }
    if (!value.isIntegralNumber() || !value.canConvertToInt()) {
      error(name, "must be an integer");
      return null;
    }
    int n = value.intValue();
    if (n < min || n > max) {
      error(name, "must be between " + min + " and " + max);
      return null;
    }
    return n;
  }

  public Double number(String name, double min, double max) {
    JsonNode value = get(name);
    if (value == null) {
      return null;
    }
    if (!value.isNumber() || !Double.isFinite(value.doubleValue())) {
      error(name, "must be a number");
      return null;
    }
    double n = value.doubleValue();
    if (n < min || n > max) {
      error(name, "must be between " + min + " and " + max);
      return null;
    }
    return n;
  }

  /** An ISO-8601 duration ({@code PT30S}), never negative, and above zero if {@code positive}. */
  public Duration duration(String name, boolean positive) {
    JsonNode value = get(name);
    if (value == null) {
      return null;
    }
    Duration d = parseDuration(value);
    if (d == null) {
      error(name, "must be an ISO-8601 duration such as PT30S");
      return null;
    }
    if (positive && (d.isZero() || d.isNegative())) {
      error(name, "must be greater than zero");
      return null;
    }
    if (d.isNegative()) {
      error(name, "must not be negative");
      return null;
    }
    if (d.compareTo(MAX_DURATION) > 0) {
      error(name, TOO_LONG);
      return null;
    }
    return d;
  }

  public static Duration parseDuration(JsonNode value) {
    if (!value.isTextual()) {
      return null;
    }
    try {
      return Duration.parse(value.textValue());
    } catch (DateTimeException | ArithmeticException e) {
      return null;
    }
  }

  /** An ISO-8601 date-time with offset ({@code 2030-01-01T09:00:00+02:00}). */
  public Instant instant(String name) {
    JsonNode value = get(name);
    if (value == null) {
      return null;
    }
    Instant instant = value.isTextual() ? parseInstant(value.textValue()) : null;
    if (instant == null) {
      error(name, "must be an ISO-8601 date-time with offset such as 2030-01-01T09:00:00Z");
      return null;
    }
    if (instant.isBefore(Instant.EPOCH) || instant.isAfter(LATEST)) {
      error(name, "must be between 1970 and " + LATEST);
      return null;
    }
    return instant;
  }

  public static Instant parseInstant(String text) {
    try {
      return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
    } catch (DateTimeException e) {
      return null;
    }
  }
}
