package io.punctual.client;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * When a child runs after its parent has ended: only if it SUCCEEDED, only if it FAILED, or always.
 * On the wire they are lower-case ({@code "on_failure"}).
 */
public enum RunCondition {
  ON_SUCCESS,
  ON_FAILURE,
  ALWAYS;

  @JsonValue
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  @JsonCreator
  public static RunCondition fromWire(String value) {
    return valueOf(value.trim().toUpperCase(Locale.ROOT));
  }
}
