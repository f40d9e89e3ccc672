package io.punctual.client;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * Whether a schedule's occurrence runs while its previous run is still going ({@code allow}, the
 * default) or is skipped ({@code skip}).
 */
public enum OverlapPolicy {
  ALLOW,
  SKIP;

  @JsonValue
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  @JsonCreator
  public static OverlapPolicy fromWire(String value) {
    return valueOf(value.trim().toUpperCase(Locale.ROOT));
  }
}
