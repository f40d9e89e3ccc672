package io.punctual.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A schedule as the API returns it. {@code status} is {@code ACTIVE} or {@code PAUSED}; {@code
 * nextFireAt} is its next fire time from now on (null while paused or once past {@code endAt});
 * {@code lastFireAt} the latest fire time that has come and became a job. Times are UTC.
 */
public record ScheduleView(
    String id,
    String namespace,
    String name,
    String initIdentifier,
    String cron,
    Duration every,
    String timezone,
    DstPolicy dst,
    MisfirePolicy misfire,
    OverlapPolicy overlap,
    Instant startAt,
    Instant endAt,
    String type,
    JsonNode payload,
    JobPriority priority,
    int maxAttempts,
    BackoffPolicy backoff,
    Duration timeout,
    List<String> tags,
    Callback callback,
    String status,
    Instant nextFireAt,
    Instant lastFireAt,
    Instant createdAt,
    Instant updatedAt) {

  public ScheduleView {
    tags = tags == null ? List.of() : List.copyOf(tags);
  }

  public boolean isPaused() {
    return "PAUSED".equals(status);
  }
}
