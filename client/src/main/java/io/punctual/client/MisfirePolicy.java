package io.punctual.client;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * What a schedule does with fire times missed while nothing could plan them: one catch-up run
 * ({@code fire_once}, the default), one per missed fire time up to the server's cap ({@code
 * fire_all}), or none ({@code skip}).
 */
public enum MisfirePolicy {
  FIRE_ONCE,
  FIRE_ALL,
  SKIP;

  @JsonValue
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  @JsonCreator
  public static MisfirePolicy fromWire(String value) {
    return valueOf(value.trim().toUpperCase(Locale.ROOT));
  }
}
