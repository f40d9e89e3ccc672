package io.punctual.app.request;

import io.punctual.client.BackoffPolicy;
import io.punctual.common.json.Json;
import io.punctual.model.Backoff;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A client's {@link BackoffPolicy} as the model's {@link Backoff}, read as the API reads a {@code
 * backoff} object: the strategy left out is {@code exponential}, whose fields left out take those
 * of {@link Backoff#DEFAULT}; unknown fields, factors above 100 and more than 100 intervals are
 * refused.
 */
final class BackoffMapping {
  private static final Map<String, Set<String>> FIELDS =
      Map.of(
          "exponential", Set.of("strategy", "initialDelay", "factor", "maxDelay", "jitter"),
          "fixed", Set.of("strategy", "delay"),
          "intervals", Set.of("strategy", "intervals"));
  private static final double MAX_FACTOR = 100.0;
  private static final int MAX_INTERVALS = 100;

  private BackoffMapping() {}

  static Backoff toBackoff(BackoffPolicy policy, String path) {
    Map<String, Object> fields = new LinkedHashMap<>(policy.fields());
    Object strategy = fields.getOrDefault("strategy", "exponential");
    Set<String> known = FIELDS.get(String.valueOf(strategy));
    if (known == null) {
      throw new InvalidJobRequestException(
          path + ".strategy", "must be one of exponential, fixed, intervals");
    }
    for (String name : fields.keySet()) {
      if (!known.contains(name)) {
        throw new InvalidJobRequestException(path + "." + name, "is not a field of " + strategy);
      }
    }
    fields.put("strategy", strategy);
    if ("exponential".equals(strategy)) {
      Backoff.Exponential d = (Backoff.Exponential) Backoff.DEFAULT;
      fields.putIfAbsent("initialDelay", d.initialDelay().toString());
      fields.putIfAbsent("factor", d.factor());
      fields.putIfAbsent("maxDelay", d.maxDelay().toString());
      fields.putIfAbsent("jitter", d.jitter());
      if (fields.get("factor") instanceof Number n && n.doubleValue() > MAX_FACTOR) {
        throw new InvalidJobRequestException(path + ".factor", "must be at most " + MAX_FACTOR);
      }
    }
    if ("intervals".equals(strategy)
        && fields.get("intervals") instanceof List<?> list
        && list.size() > MAX_INTERVALS) {
      throw new InvalidJobRequestException(
          path + ".intervals", "must have at most " + MAX_INTERVALS + " entries");
    }
    Backoff backoff;
    try {
      backoff = Json.mapper().convertValue(fields, Backoff.class);
    } catch (IllegalArgumentException | DateTimeParseException e) {
      throw new InvalidJobRequestException(path, rootMessage(e));
    }
    checkDurations(backoff, path);
    return backoff;
  }

  private static void checkDurations(Backoff backoff, String path) {
    List<Duration> all =
        switch (backoff) {
          case Backoff.Exponential e -> List.of(e.initialDelay(), e.maxDelay());
          case Backoff.Fixed f -> List.of(f.delay());
          case Backoff.Intervals i -> i.intervals();
        };
    for (Duration d : all) {
      if (d.compareTo(JobRequestMapper.MAX_DURATION) > 0) {
        throw new InvalidJobRequestException(path, "durations must be at most P365000D");
      }
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage();
  }
}
