package io.punctual.common.request;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.common.job.Backoff;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reads a {@code backoff} object: {@code exponential} (initialDelay, factor, maxDelay, jitter; any
 * left out take the defaults PT1S, 2.0, PT1H, 0.2), {@code fixed} (delay) or {@code intervals}.
 */
public final class BackoffParser {
  static final int MAX_INTERVALS = 100;
  private static final double MAX_FACTOR = 100.0;

  private BackoffParser() {}

  /** The backoff, or null if it is invalid (the errors are in {@code violations}). */
  public static Backoff parse(JsonNode value, String path, Violations violations) {
    if (!(value instanceof ObjectNode object)) {
      violations.add(path, "must be an object with a strategy");
      return null;
    }
    Fields f = new Fields(object, path + ".", violations);
    String strategy = f.string("strategy", true, 50);
    if (strategy == null) {
      return null;
    }
    return switch (strategy) {
      case "exponential" -> exponential(f);
      case "fixed" -> fixed(f);
      case "intervals" -> intervals(f, path, violations);
      default -> {
        f.error("strategy", "must be one of exponential, fixed, intervals");
        yield null;
      }
    };
  }

  private static Backoff exponential(Fields f) {
    f.rejectUnknown(Set.of("strategy", "initialDelay", "factor", "maxDelay", "jitter"));
    int before = f.errorCount();
    Backoff.Exponential defaults = (Backoff.Exponential) Backoff.DEFAULT;
    Duration initial = orElse(f.duration("initialDelay", false), defaults.initialDelay());
    Double factor = orElse(f.number("factor", 1.0, MAX_FACTOR), defaults.factor());
    Duration max = orElse(f.duration("maxDelay", false), defaults.maxDelay());
    Double jitter = orElse(f.number("jitter", 0.0, 1.0), defaults.jitter());
    if (f.errorCount() > before) {
      return null;
    }
    if (max.compareTo(initial) < 0) {
      f.error(f.has("maxDelay") ? "maxDelay" : "initialDelay", "maxDelay must be >= initialDelay");
      return null;
    }
    return new Backoff.Exponential(initial, factor, max, jitter);
  }

  private static Backoff fixed(Fields f) {
    f.rejectUnknown(Set.of("strategy", "delay"));
    if (!f.has("delay")) {
      f.error("delay", "is required");
      return null;
    }
    Duration delay = f.duration("delay", false);
    return delay == null ? null : new Backoff.Fixed(delay);
  }

  private static Backoff intervals(Fields f, String path, Violations violations) {
    f.rejectUnknown(Set.of("strategy", "intervals"));
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
      } else {
        intervals.add(d);
      }
    }
    return intervals.size() == list.size() ? new Backoff.Intervals(intervals) : null;
  }

  private static <T> T orElse(T value, T fallback) {
    return value != null ? value : fallback;
  }
}
