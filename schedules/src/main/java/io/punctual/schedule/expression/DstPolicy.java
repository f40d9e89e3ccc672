package io.punctual.schedule.expression;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * What a cron schedule does with wall-clock times that a daylight-saving change makes special.
 *
 * <ul>
 *   <li>{@link Gap}: a time that does not exist (inside the spring-forward gap, e.g. 02:30 when
 *       clocks jump from 02:00 to 03:00). {@code shift} (default) fires once, moved forward by the
 *       length of the gap (02:30 fires at 03:30); {@code skip} does not fire that day.
 *   <li>{@link Overlap}: a time that happens twice (the fall-back hour, e.g. 02:30 when clocks go
 *       from 03:00 back to 02:00). {@code first} (default) fires once, at the first of the two;
 *       {@code both} fires at each.
 * </ul>
 *
 * Interval schedules ({@code every}) count absolute time and are not affected by either.
 */
public record DstPolicy(Gap gap, Overlap overlap) {
  public static final DstPolicy DEFAULT = new DstPolicy(Gap.SHIFT, Overlap.FIRST);

  public DstPolicy {
    Objects.requireNonNull(gap, "gap");
    Objects.requireNonNull(overlap, "overlap");
  }

  /** A wall-clock time skipped by a spring-forward change. */
  public enum Gap {
    SHIFT,
    SKIP;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<Gap> parse(String value) {
      return WireNames.parse(Gap.class, value);
    }
  }

  /** A wall-clock time repeated by a fall-back change. */
  public enum Overlap {
    FIRST,
    BOTH;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<Overlap> parse(String value) {
      return WireNames.parse(Overlap.class, value);
    }
  }
}
