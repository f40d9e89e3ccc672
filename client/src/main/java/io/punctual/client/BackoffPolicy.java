package io.punctual.client;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How long the server waits between attempts, in the JSON shape the API takes, e.g. {@code
 * {"strategy":"fixed","delay":"PT30S"}}. Build one with the factories or wrap any map.
 */
public record BackoffPolicy(Map<String, Object> fields) {

  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public BackoffPolicy {
    fields = Map.copyOf(Objects.requireNonNull(fields, "fields"));
  }

  /** {@code initialDelay * factor^(n-1)}, capped at {@code maxDelay}, plus or minus jitter. */
  public static BackoffPolicy exponential(
      Duration initialDelay, double factor, Duration maxDelay, double jitter) {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("strategy", "exponential");
    f.put("initialDelay", initialDelay.toString());
    f.put("factor", factor);
    f.put("maxDelay", maxDelay.toString());
    f.put("jitter", jitter);
    return new BackoffPolicy(f);
  }

  /** The same delay after every failure. */
  public static BackoffPolicy fixed(Duration delay) {
    return new BackoffPolicy(Map.of("strategy", "fixed", "delay", delay.toString()));
  }

  /** The n-th failure waits the n-th interval; past the end, the last one. */
  public static BackoffPolicy intervals(Duration... intervals) {
    List<String> values = Arrays.stream(intervals).map(Duration::toString).toList();
    return new BackoffPolicy(Map.of("strategy", "intervals", "intervals", values));
  }

  /** {@code "exponential"}, {@code "fixed"} or {@code "intervals"}. */
  public String strategy() {
    return (String) fields.get("strategy");
  }

  @JsonValue
  @Override
  public Map<String, Object> fields() {
    return fields;
  }
}
