package io.punctual.model;

import java.util.Locale;
import java.util.Optional;

/** Queue priorities, highest first. Each has its own Redis sorted set. */
public enum Priority {
  CRITICAL(0),
  HIGH(1),
  NORMAL(2),
  LOW(3);

  private static final Priority[] BY_RANK = {CRITICAL, HIGH, NORMAL, LOW};

  private final int rank;

  Priority(int rank) {
    this.rank = rank;
  }

  /**
   * 0 for the highest priority to 3 for the lowest: the number stored in {@code jobs.priority} and
   * {@code schedules.priority}, and the position of its sorted set among a namespace's queues.
   * Fixed here, not taken from the declaration order, because stored rows and Redis keys depend on
   * it.
   */
  public int rank() {
    return rank;
  }

  /** The priority of a stored {@link #rank()}. */
  public static Priority ofRank(int rank) {
    if (rank < 0 || rank >= BY_RANK.length) {
      throw new IllegalArgumentException("no priority has rank " + rank);
    }
    return BY_RANK[rank];
  }

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
