package io.punctual.schedule.expression;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A cron expression parsed by cron-utils, in one of two dialects chosen by its number of fields:
 *
 * <ul>
 *   <li>5 fields, Unix ({@code minute hour day-of-month month day-of-week}): names ({@code
 *       MON-FRI}, {@code JAN}), ranges, steps, lists; day-of-week 0-7 with 0 and 7 both Sunday;
 *       when both day fields are restricted, a day matching either fires (as in Vixie cron). The
 *       nicknames {@code @yearly}, {@code @annually}, {@code @monthly}, {@code @weekly},
 *       {@code @daily}, {@code @midnight} and {@code @hourly} stand for their 5-field forms.
 *   <li>6 or 7 fields, Quartz ({@code second minute hour day-of-month month day-of-week [year]}):
 *       adds seconds, {@code L}, {@code W}, {@code #} and a year; day-of-week 1-7 is SUN-SAT; one
 *       of the two day fields must be {@code ?}.
 * </ul>
 *
 * It answers one question, {@link #nextLocal}: the next matching wall-clock time on a time line
 * without daylight-saving changes. Mapping wall-clock times to instants in a zone (where some do
 * not exist and some exist twice) is {@link CronFireTimes}'s job. Immutable and thread-safe.
 */
public final class CronExpression {
  /** The dialect of an expression. */
  public enum Dialect {
    UNIX,
    QUARTZ
  }

  private static final CronParser UNIX =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
  private static final CronParser QUARTZ =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.QUARTZ));
  private static final Map<String, String> NICKNAMES =
      Map.of(
          "@yearly", "0 0 1 1 *",
          "@annually", "0 0 1 1 *",
          "@monthly", "0 0 1 * *",
          "@weekly", "0 0 * * 0",
          "@daily", "0 0 * * *",
          "@midnight", "0 0 * * *",
          "@hourly", "0 * * * *");

  /** Parsed expressions by text, for the planner, which reads the same few over and over. */
  private static final Map<String, CronExpression> CACHE = new ConcurrentHashMap<>();

  private static final int CACHE_LIMIT = 10_000;

  /** Longest expression accepted (cron-utils' parser is not meant for arbitrary input sizes). */
  public static final int MAX_LENGTH = 200;

  private final String text;
  private final Dialect dialect;
  private final ExecutionTime executionTime;

  private CronExpression(String text, Dialect dialect, ExecutionTime executionTime) {
    this.text = text;
    this.dialect = dialect;
    this.executionTime = executionTime;
  }

  /**
   * Parses {@code text} (surrounding blanks ignored).
   *
   * @throws InvalidExpressionException saying what is wrong, in words meant for the user
   */
  public static CronExpression parse(String text) {
    if (text == null || text.isBlank()) {
      throw new InvalidExpressionException("must not be blank");
    }
    String trimmed = text.trim();
    if (trimmed.length() > MAX_LENGTH) {
      throw new InvalidExpressionException("must be at most " + MAX_LENGTH + " characters");
    }
    String expanded = trimmed;
    if (trimmed.startsWith("@")) {
      expanded = NICKNAMES.get(trimmed.toLowerCase(Locale.ROOT));
      if (expanded == null) {
        throw new InvalidExpressionException(
            "unknown nickname " + trimmed + "; known: " + String.join(", ", NICKNAMES.keySet()));
      }
    }
    int fields = expanded.split("\\s+").length;
    Dialect dialect;
    if (fields == 5) {
      dialect = Dialect.UNIX;
    } else if (fields == 6 || fields == 7) {
      dialect = Dialect.QUARTZ;
    } else {
      throw new InvalidExpressionException(
          "has "
              + fields
              + " fields; expected 5 (Unix: minute hour day-of-month month day-of-week) or 6-7"
              + " (Quartz: second minute hour day-of-month month day-of-week [year])");
    }
    try {
      CronParser parser = dialect == Dialect.UNIX ? UNIX : QUARTZ;
      ExecutionTime executionTime = ExecutionTime.forCron(parser.parse(expanded));
      return new CronExpression(trimmed, dialect, executionTime);
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new InvalidExpressionException(explain(dialect, e.getMessage()));
    }
  }

  /** {@link #parse}, remembering the result (expressions stored in a schedule parse every time). */
  public static CronExpression cached(String text) {
    CronExpression cached = CACHE.get(text);
    if (cached == null) {
      cached = parse(text);
      if (CACHE.size() >= CACHE_LIMIT) {
        CACHE.clear();
      }
      CACHE.put(text, cached);
    }
    return cached;
  }

  /** cron-utils' message, without its boilerplate, plus a hint for the usual Quartz mistake. */
  private static String explain(Dialect dialect, String message) {
    String m = message == null ? "is not a valid expression" : message;
    m = m.replace("Failed to parse cron expression. ", "").replace("Failed to parse '", "'");
    if (dialect == Dialect.QUARTZ && m.contains("day-of-week AND a day-of-month")) {
      return "is not valid Quartz: one of day-of-month and day-of-week must be ? (e.g. 0 0 9 ? *"
          + " MON-FRI)";
    }
    return "is not a valid " + (dialect == Dialect.UNIX ? "Unix" : "Quartz") + " expression: " + m;
  }

  /** The expression as given (trimmed). */
  public String text() {
    return text;
  }

  public Dialect dialect() {
    return dialect;
  }

  /**
   * The first wall-clock time matching this expression strictly after {@code after}, on a time line
   * where every wall-clock time exists exactly once; empty when none follows (a year field in the
   * past, or a date that never exists such as February 30).
   */
  public Optional<LocalDateTime> nextLocal(LocalDateTime after) {
    // Matches are whole seconds; cron-utils keeps a fraction it is given, so drop it first (a
    // match at the floor itself is not after `after` and is skipped, as it should be).
    LocalDateTime from = after.truncatedTo(ChronoUnit.SECONDS);
    return executionTime.nextExecution(from.atZone(ZoneOffset.UTC)).map(z -> z.toLocalDateTime());
  }

  @Override
  public String toString() {
    return text;
  }
}
