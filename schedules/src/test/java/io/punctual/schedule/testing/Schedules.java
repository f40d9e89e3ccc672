package io.punctual.schedule.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.punctual.model.Backoff;
import io.punctual.model.Priority;
import io.punctual.schedule.JobTemplate;
import io.punctual.schedule.MisfirePolicy;
import io.punctual.schedule.OverlapPolicy;
import io.punctual.schedule.Schedule;
import io.punctual.schedule.ScheduleDefinition;
import io.punctual.schedule.ScheduleStatus;
import io.punctual.schedule.expression.DstPolicy;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.UUID;

/** Fixture builder: {@code aSchedule().cron("0 9 * * *").zone("Europe/Paris").definition()}. */
public final class Schedules {
  private String name = "s-" + UUID.randomUUID().toString().substring(0, 8);
  private String initIdentifier;
  private String cron;
  private Duration every = Duration.ofMinutes(1);
  private ZoneId zone = ZoneId.of("UTC");
  private DstPolicy dst = DstPolicy.DEFAULT;
  private Instant startAt;
  private Instant endAt;
  private MisfirePolicy misfire = MisfirePolicy.FIRE_ONCE;
  private OverlapPolicy overlap = OverlapPolicy.ALLOW;
  private String type = "noop";
  private JsonNode payload;
  private Duration timeout;

  public static Schedules aSchedule() {
    return new Schedules();
  }

  public Schedules name(String v) {
    name = v;
    return this;
  }

  public Schedules initIdentifier(String v) {
    initIdentifier = v;
    return this;
  }

  public Schedules cron(String v) {
    cron = v;
    every = null;
    return this;
  }

  public Schedules every(Duration v) {
    every = v;
    cron = null;
    return this;
  }

  public Schedules zone(String v) {
    zone = ZoneId.of(v);
    return this;
  }

  public Schedules dst(DstPolicy v) {
    dst = v;
    return this;
  }

  public Schedules startAt(Instant v) {
    startAt = v;
    return this;
  }

  public Schedules endAt(Instant v) {
    endAt = v;
    return this;
  }

  public Schedules misfire(MisfirePolicy v) {
    misfire = v;
    return this;
  }

  public Schedules overlap(OverlapPolicy v) {
    overlap = v;
    return this;
  }

  public Schedules type(String v) {
    type = v;
    return this;
  }

  /** The job's payload; by default {@code {"from": name}}. */
  public Schedules payload(JsonNode v) {
    payload = v;
    return this;
  }

  public Schedules timeout(Duration v) {
    timeout = v;
    return this;
  }

  public ScheduleDefinition definition() {
    return new ScheduleDefinition(
        name,
        initIdentifier,
        cron,
        every,
        zone,
        dst,
        startAt,
        endAt,
        misfire,
        overlap,
        new JobTemplate(
            type,
            payload != null ? payload : JsonNodeFactory.instance.objectNode().put("from", name),
            Priority.NORMAL,
            3,
            new Backoff.Fixed(Duration.ofSeconds(1)),
            timeout,
            List.of("scheduled"),
            null));
  }

  /** An ACTIVE stored-looking schedule created at {@code createdAt}, next fire time as given. */
  public Schedule stored(Instant createdAt, Instant nextFireAt, UUID lastJobId) {
    return new Schedule(
        UUID.randomUUID(),
        "default",
        definition(),
        ScheduleStatus.ACTIVE,
        nextFireAt,
        createdAt,
        null,
        lastJobId,
        createdAt,
        createdAt,
        null);
  }
}
