package io.punctual.client;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;
import java.util.Objects;

/**
 * What a cron schedule does at daylight-saving changes: a wall-clock time inside the spring-forward
 * gap is shifted forward by the gap ({@link Gap#SHIFT}, the default) or skipped; a time repeated by
 * the fall-back change fires at its first occurrence ({@link Overlap#FIRST}, the default) or at
 * both.
 */
public record DstPolicy(Gap gap, Overlap overlap) {
  public static final DstPolicy DEFAULT = new DstPolicy(Gap.SHIFT, Overlap.FIRST);

  public DstPolicy {
    Objects.requireNonNull(gap, "gap");
    Objects.requireNonNull(overlap, "overlap");
  }

  public enum Gap {
    SHIFT,
    SKIP;

    @JsonValue
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static Gap fromWire(String value) {
      return valueOf(value.trim().toUpperCase(Locale.ROOT));
    }
  }

  public enum Overlap {
    FIRST,
    BOTH;

    @JsonValue
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static Overlap fromWire(String value) {
      return valueOf(value.trim().toUpperCase(Locale.ROOT));
    }
  }
}
