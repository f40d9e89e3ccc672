package io.punctual.requests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.model.Backoff;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reads a {@code backoff} object: {@code exponential} (initialDelay, factor, maxDelay, jitter; any
 * left out take the defaults PT1S, 2.0, PT1H, 0.2, those of {@link Backoff#DEFAULT}), {@code fixed}
 * (delay) or {@code intervals}. The strategy left out is {@code exponential}, as documented: {@code
 * {}} is the default backoff and {@code {"factor":3.0}} the default with a factor of 3. Every bad
 * field is named at once ({@code backoff.factor}, {@code backoff.jitter}).
 */
public final class BackoffParser {
  /** The fields of each strategy's object (the OpenAPI document is checked against them). */
  static final Set<String> EXPONENTIAL_FIELDS =
      Set.of("strategy", "initialDelay", "factor", "maxDelay", "jitter");

  static final Set<String> FIXED_FIELDS = Set.of("strategy", "delay");
  static final Set<String> INTERVALS_FIELDS = Set.of("strategy", "intervals");

  static final int MAX_INTERVALS = 100;
  private static final double MAX_FACTOR = 100.0;
  private static final String EXPONENTIAL = "exponential";

  private BackoffParser() {}

  /** The backoff, or null if it is invalid (the errors are in {@code violations}). */
  public static Backoff parse(JsonNode value, String path, Violations violations) {
    if (!(value instanceof ObjectNode object)) {
      violations.add(path, "must be an object with a strategy");
      return null;
    }
    Fields f = new Fields(object, path + ".", violations);
    String strategy = f.has("strategy") ? f.string("strategy", true, 50) : EXPONENTIAL;
    if (strategy == null) {
      return null;
    }
    return switch (strategy) {
      case EXPONENTIAL -> exponential(f);
      case "fixed" -> fixed(f);
      case "intervals" -> intervals(f, path, violations);
      default -> {
        f.error("strategy", "must be one of exponential, fixed, intervals");
        yield null;
      }
    };
  }

  private static Backoff exponential(Fields f) {
    f.rejectUnknown(EXPONENTIAL_FIELDS);
    int before = f.errorCount();
    Backoff.Exponential defaults = (Backoff.Exponential) Backoff.DEFAULT;
    Duration initial =
        valueOrDefault(
            f, "initialDelay", f.duration("initialDelay", false), defaults.initialDelay());
    Double factor =
        valueOrDefault(f, "factor", f.number("factor", 1.0, MAX_FACTOR), defaults.factor());
    Duration max =
        valueOrDefault(f, "maxDelay", f.duration("maxDelay", false), defaults.maxDelay());
    Double jitter = valueOrDefault(f, "jitter", f.number("jitter", 0.0, 1.0), defaults.jitter());
    if (initial != null && max != null && max.compareTo(initial) < 0) {
      f.error(f.has("maxDelay") ? "maxDelay" : "initialDelay", "maxDelay must be >= initialDelay");
    }
    if (f.errorCount() > before) {
      return null;
    }
    return new Backoff.Exponential(initial, factor, max, jitter);
  }

  private static Backoff fixed(Fields f) {
    f.rejectUnknown(FIXED_FIELDS);
    if (!f.has("delay")) {
      f.error("delay", "is required");
      return null;
    }
    Duration delay = f.duration("delay", false);
    return delay == null ? null : new Backoff.Fixed(delay);
  }

  private static Backoff intervals(Fields f, String path, Violations violations) {
    f.rejectUnknown(INTERVALS_FIELDS);
    JsonNode list = f.get("intervals");
    if (list == null || !list.isArray() || list.isEmpty()) {
      f.error("intervals", "must be a non-empty array of ISO-8601 durations");
      return null;
    }
    if (list.size() > MAX_INTERVALS) {
      f.error("intervals", "must have at most " + MAX_INTERVALS + " entries");
      return null;
    }
    List<Duration> intervals = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      Duration d = Fields.parseDuration(list.get(i));
      if (d == null || d.isNegative()) {
        violations.add(path + ".intervals[" + i + "]", "must be a non-negative ISO-8601 duration");
      } else if (d.compareTo(Fields.MAX_DURATION) > 0) {
        violations.add(path + ".intervals[" + i + "]", Fields.TOO_LONG);
      } else {
        intervals.add(d);
      }
    }
    return intervals.size() == list.size() ? new Backoff.Intervals(intervals) : null;
  }

  /** The field's value; its default when left out; null when it is invalid (already recorded). */
  private static <T> T valueOrDefault(Fields f, String name, T value, T fallback) {
    return f.has(name) ? value : fallback;
  }
}
