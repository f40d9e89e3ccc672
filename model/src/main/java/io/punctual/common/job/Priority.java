package io.punctual.common.job;

import java.util.Locale;
import java.util.Optional;

/** Queue priorities, highest first. Each has its own Redis sorted set. */
public enum Priority {
  CRITICAL,
  HIGH,
  NORMAL,
  LOW;

  /** The lower-case name used in JSON and Redis keys. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<Priority> parse(String value) {
    if (value == null) {
      return Optional.empty();
    }
    for (Priority p : values()) {
      if (p.wireName().equals(value.trim().toLowerCase(Locale.ROOT))) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }
}
