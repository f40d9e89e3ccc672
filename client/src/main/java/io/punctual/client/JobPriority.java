package io.punctual.client;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Queue priorities, highest first. On the wire they are lower-case ({@code "high"}). */
public enum JobPriority {
  CRITICAL,
  HIGH,
  NORMAL,
  LOW;

  @JsonValue
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  @JsonCreator
  public static JobPriority fromWire(String value) {
    return valueOf(value.trim().toUpperCase(Locale.ROOT));
  }
}
