package io.punctual.worker.handler.http;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/** Parses an HTTP {@code Retry-After} value: delta-seconds or an HTTP date. */
public final class RetryAfter {
  private RetryAfter() {}

  /** The delay the value asks for, measured from {@code now}; empty when unparseable. */
  public static Optional<Duration> parse(String value, Instant now) {
    if (value == null || value.isBlank()) {
      return Optional.empty();
    }
    String v = value.trim();
    if (v.chars().allMatch(Character::isDigit)) {
      try {
        return Optional.of(Duration.ofSeconds(Long.parseLong(v)));
      } catch (NumberFormatException e) {
        return Optional.empty();
      }
    }
    try {
      Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration d = Duration.between(now, at);
      return Optional.of(d.isNegative() ? Duration.ZERO : d);
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
