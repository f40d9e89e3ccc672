package io.punctual.api.schedules;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.api.jobs.CallbackView;
import io.punctual.model.Backoff;
import io.punctual.schedule.JobTemplate;
import io.punctual.schedule.Schedule;
import io.punctual.schedule.ScheduleDefinition;
import io.punctual.schedule.ScheduleStatus;
import io.punctual.schedule.expression.WireNames;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A schedule as the API shows it: its definition in the request's shape, plus {@code status},
 * {@code nextFireAt} (its next fire time from now on; null while PAUSED or once past {@code endAt})
 * and {@code lastFireAt} (the latest fire time that has come and became a job). Every field is
 * always present (null when unset). {@code callback.headers} show their names only ({@link
 * CallbackView}).
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record ScheduleRepresentation(
    String id,
    String namespace,
    String name,
    String initIdentifier,
    String cron,
    Duration every,
    String timezone,
    Dst dst,
    String misfire,
    String overlap,
    Instant startAt,
    Instant endAt,
    String type,
    JsonNode payload,
    String priority,
    int maxAttempts,
    Backoff backoff,
    Duration timeout,
    List<String> tags,
    JsonNode callback,
    String status,
    Instant nextFireAt,
    Instant lastFireAt,
    Instant createdAt,
    Instant updatedAt) {

  /** The {@code dst} object. */
  public record Dst(String gap, String overlap) {}

  public static ScheduleRepresentation of(Schedule s, Instant now) {
    ScheduleDefinition d = s.definition();
    JobTemplate job = d.job();
    Instant next =
        s.status() == ScheduleStatus.ACTIVE ? s.fireTimes().firstFrom(now).orElse(null) : null;
    return new ScheduleRepresentation(
        s.id().toString(),
        s.namespace(),
        d.name(),
        d.initIdentifier(),
        d.cron(),
        d.every(),
        d.zone().getId(),
        new Dst(WireNames.of(d.dst().gap()), WireNames.of(d.dst().overlap())),
        WireNames.of(d.misfire()),
        WireNames.of(d.overlap()),
        d.startAt(),
        d.endAt(),
        job.type(),
        job.payload(),
        job.priority().wireName(),
        job.maxAttempts(),
        job.backoff(),
        job.timeout(),
        job.tags(),
        CallbackView.of(job.callback()),
        s.status().name(),
        next,
        s.lastFiredAt(),
        s.createdAt(),
        s.updatedAt());
  }
}
