package io.punctual.model;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Job ids are UUIDv7-shaped: the 48-bit millisecond timestamp is the job's <em>scheduled time</em>
 * (the partition key of {@code jobs}), not its creation time. Any lookup by id therefore derives
 * the partition key from the id and touches exactly one partition.
 */
public final class JobId {
  private JobId() {}

  /** A new id whose embedded time is {@code scheduledAt} truncated to milliseconds. */
  public static UUID forScheduledTime(Instant scheduledAt) {
    long millis = scheduledAt.toEpochMilli();
    if (millis < 0 || millis >= (1L << 48)) {
      throw new IllegalArgumentException("scheduled time out of range: " + scheduledAt);
    }
    ThreadLocalRandom random = ThreadLocalRandom.current();
    long msb = (millis << 16) | 0x7000L | (random.nextLong() & 0x0FFFL);
    long lsb = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    return new UUID(msb, lsb);
  }

  /** The partition key embedded in a job id. */
  public static Instant scheduledAt(UUID id) {
    return Instant.ofEpochMilli(id.getMostSignificantBits() >>> 16);
  }

  /** Parses a job id, accepting only version-7 UUIDs (the ones Punctual issues). */
  public static Optional<UUID> parse(String value) {
    if (value == null || value.length() != 36) {
      return Optional.empty();
    }
    try {
      UUID id = UUID.fromString(value);
      return id.version() == 7 ? Optional.of(id) : Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
