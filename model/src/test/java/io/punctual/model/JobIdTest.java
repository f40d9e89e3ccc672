package io.punctual.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class JobIdTest {

  @Test
  void embedsTheScheduledTimeToTheMillisecond() {
    Instant t = Instant.parse("2026-03-29T01:30:00.123456Z");
    UUID id = JobId.forScheduledTime(t);

    assertThat(id.version()).isEqualTo(7);
    assertThat(id.variant()).isEqualTo(2);
    assertThat(JobId.scheduledAt(id)).isEqualTo(Instant.parse("2026-03-29T01:30:00.123Z"));
  }

  @Test
  void idsOrderByScheduledTime() {
    UUID earlier = JobId.forScheduledTime(Instant.parse("2026-01-01T00:00:00Z"));
    UUID later = JobId.forScheduledTime(Instant.parse("2026-01-01T00:00:00.001Z"));
    // PostgreSQL compares uuids bytewise, i.e. as unsigned: the most significant bits first.
    assertThat(
            Long.compareUnsigned(earlier.getMostSignificantBits(), later.getMostSignificantBits()))
        .isNegative();
  }

  @Test
  void idsForTheSameMillisecondAreDistinct() {
    Instant t = Instant.now();
    Set<UUID> ids = new HashSet<>();
    for (int i = 0; i < 100_000; i++) {
      ids.add(JobId.forScheduledTime(t));
    }
    assertThat(ids).hasSize(100_000);
  }

  @Test
  void parseAcceptsOnlyPunctualIds() {
    UUID id = JobId.forScheduledTime(Instant.now());
    assertThat(JobId.parse(id.toString())).contains(id);
    assertThat(JobId.parse(UUID.randomUUID().toString())).isEmpty();
    assertThat(JobId.parse("not-a-uuid")).isEmpty();
    assertThat(JobId.parse(null)).isEmpty();
  }
}
