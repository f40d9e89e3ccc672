package io.punctual.api.schedules;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.DateTimeException;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code every} of a schedule: an ISO-8601 duration of fixed length, counted in absolute time.
 * Weeks ({@code P2W}, 7 × 24 h each), days ({@code P1D}, 24 h each), hours, minutes and seconds are
 * accepted, alone or combined as {@link Duration#parse} allows ({@code P1DT12H}). Months and years
 * have no fixed length, so they are refused with a pointer to cron.
 */
final class Every {
  private static final Pattern WEEKS = Pattern.compile("P(\\d{1,6})W");

  /** A date part (before any T) naming years or months: P1Y, P1M, P1Y2M10D, P1MT2H. */
  private static final Pattern CALENDAR = Pattern.compile("[-+]?P[^T]*[YM].*");

  static final String FIXED_LENGTH =
      "must be an ISO-8601 duration of fixed length such as PT30S, PT15M, PT1H, P1D or P1W"
          + " (a day is 24 hours, a week 7 days)";
  static final String CALENDAR_UNITS =
      "months and years have no fixed length and cannot be an interval: use cron"
          + " (\"0 0 1 * *\" fires on the 1st of each month)";

  private Every() {}

  /** The interval, or an {@link IllegalArgumentException} whose message says what is accepted. */
  static Duration parse(JsonNode value) {
    if (!value.isTextual()) {
      throw new IllegalArgumentException(FIXED_LENGTH);
    }
    String text = value.textValue().trim().toUpperCase(Locale.ROOT);
    Matcher weeks = WEEKS.matcher(text);
    if (weeks.matches()) {
      return Duration.ofDays(7L * Long.parseLong(weeks.group(1)));
    }
    if (CALENDAR.matcher(text).matches()) {
      throw new IllegalArgumentException(CALENDAR_UNITS);
    }
    try {
      return Duration.parse(text);
    } catch (DateTimeException | ArithmeticException e) {
      throw new IllegalArgumentException(FIXED_LENGTH);
    }
  }
}
