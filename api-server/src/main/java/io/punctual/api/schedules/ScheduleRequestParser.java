package io.punctual.api.schedules;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.model.Backoff;
import io.punctual.model.Priority;
import io.punctual.requests.Fields;
import io.punctual.requests.InvalidFieldsException;
import io.punctual.requests.JobFields;
import io.punctual.requests.StorableText;
import io.punctual.requests.Violations;
import io.punctual.schedule.JobTemplate;
import io.punctual.schedule.MisfirePolicy;
import io.punctual.schedule.OverlapPolicy;
import io.punctual.schedule.ScheduleDefinition;
import io.punctual.schedule.expression.CronExpression;
import io.punctual.schedule.expression.DstPolicy;
import io.punctual.schedule.expression.InvalidExpressionException;
import io.punctual.schedule.expression.TimeZones;
import io.punctual.schedule.expression.WireNames;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Validates a schedule body ({@code POST} and {@code PUT /schedules}, or one declared under {@code
 * planner.schedules}) field by field: every invalid field is listed in one {@link
 * InvalidFieldsException}, each under its name ({@code "cron"}, {@code "timezone"}, {@code
 * "dst.gap"}, {@code "backoff.factor"}); the API answers it with a 422 problem. The job fields take
 * the same values and defaults as {@code POST /jobs} ({@link JobFields}).
 */
public final class ScheduleRequestParser {
  /** The longest {@code name} (and {@code initIdentifier}), in UTF-16 characters. */
  public static final int MAX_NAME_LENGTH = 200;

  /** The fields of a {@code dst} object. */
  static final Set<String> DST_FIELDS = Set.of("gap", "overlap");

  private static final Set<String> FIELDS =
      Set.of(
          "name",
          "initIdentifier",
          "cron",
          "every",
          "timezone",
          "dst",
          "misfire",
          "overlap",
          "startAt",
          "endAt",
          "type",
          "payload",
          "priority",
          "maxAttempts",
          "backoff",
          "timeout",
          "tags",
          "callback");

  private final JobFields jobFields;
  private final Duration minInterval;

  /**
   * @param jobRules the limits and defaults of the job fields (the API's)
   * @param minInterval the smallest {@code every} (the setting {@code planner.minInterval})
   */
  public ScheduleRequestParser(JobFields.Rules jobRules, Duration minInterval) {
    if (minInterval == null || minInterval.toMillis() < 1) {
      throw new IllegalArgumentException(
          "planner.minInterval must be at least a millisecond (PT0.001S)");
    }
    this.jobFields = new JobFields(jobRules);
    this.minInterval = minInterval;
  }

  /**
   * The definition in {@code body}.
   *
   * @throws InvalidFieldsException listing every invalid field (first, every field with text no
   *     schedule may hold: see {@link StorableText})
   * @throws io.punctual.requests.FieldTooLargeException when the payload is too large
   * @param now the moment it would start (a schedule that would never fire from then on is refused)
   */
  public ScheduleDefinition parse(JsonNode body, Instant now) {
    return parse(body, "", now);
  }

  /**
   * As {@link #parse(JsonNode, Instant)}, each error's field prefixed ({@code "schedules[2]."}).
   */
  public ScheduleDefinition parse(JsonNode body, String prefix, Instant now) {
    if (!(body instanceof ObjectNode object)) {
      String field = prefix.isEmpty() ? null : prefix.substring(0, prefix.length() - 1);
      throw new InvalidFieldsException(field, "must be a JSON object describing a schedule");
    }
    StorableText.require(object, prefix.isEmpty() ? "" : prefix.substring(0, prefix.length() - 1));
    Violations violations = new Violations();
    Fields f = new Fields(object, prefix, violations);
    f.rejectUnknown(FIELDS);
    String name = f.string("name", true, MAX_NAME_LENGTH);
    String initIdentifier = f.string("initIdentifier", false, MAX_NAME_LENGTH);

    int timingErrors = f.errorCount();
    String cron = cron(f);
    Duration every = every(f);
    if (f.has("cron") && f.has("every")) {
      f.error("every", "give either cron or every, not both");
    } else if (!f.has("cron") && !f.has("every")) {
      f.error("cron", "is required (or every, an ISO-8601 duration such as PT1M)");
    }
    ZoneId zone = zone(f);
    DstPolicy dst = dst(f, violations);
    Instant startAt = f.instant("startAt");
    Instant endAt = f.instant("endAt");
    if (startAt != null && endAt != null && !endAt.isAfter(startAt)) {
      f.error("endAt", "must be after startAt");
    }
    boolean timingValid = f.errorCount() == timingErrors;

    MisfirePolicy misfire = choice(f, "misfire", MisfirePolicy.class, MisfirePolicy.FIRE_ONCE);
    OverlapPolicy overlap = choice(f, "overlap", OverlapPolicy.class, OverlapPolicy.ALLOW);
    JobTemplate job = job(f);

    if (timingValid) {
      Instant from = startAt != null && startAt.isAfter(now) ? startAt : now;
      boolean fires =
          ScheduleDefinition.fireTimes(cron, every, zone, dst, startAt, endAt, now)
              .firstFrom(from)
              .isPresent();
      if (!fires && endAt != null) {
        f.error("endAt", "leaves no fire time: the schedule would never fire before it");
      } else if (!fires) {
        f.error("cron", "never fires from now on (no date matches it)");
      }
    }
    violations.throwIfAny();
    return new ScheduleDefinition(
        name, initIdentifier, cron, every, zone, dst, startAt, endAt, misfire, overlap, job);
  }

  private static String cron(Fields f) {
    String text = f.string("cron", false, CronExpression.MAX_LENGTH);
    if (text == null) {
      return null;
    }
    try {
      return CronExpression.parse(text).text();
    } catch (InvalidExpressionException e) {
      f.error("cron", e.getMessage());
      return null;
    }
  }

  /** See {@link Every}: weeks, days, hours, minutes, seconds; at least planner.minInterval. */
  private Duration every(Fields f) {
    JsonNode value = f.get("every");
    if (value == null) {
      return null;
    }
    Duration every;
    try {
      every = Every.parse(value);
    } catch (IllegalArgumentException e) {
      f.error("every", e.getMessage());
      return null;
    }
    if (!every.isPositive()) {
      f.error("every", "must be greater than zero");
      return null;
    }
    if (every.compareTo(Fields.MAX_DURATION) > 0) {
      f.error("every", Fields.TOO_LONG);
      return null;
    }
    if (every.compareTo(minInterval) < 0) {
      f.error("every", "must be at least " + minInterval + " (planner.minInterval)");
      return null;
    }
    return every;
  }

  /** An IANA time zone id ({@code Europe/Paris}, {@code UTC}); default UTC. */
  private static ZoneId zone(Fields f) {
    String text = f.string("timezone", false, 100);
    if (text == null) {
      return f.has("timezone") ? null : ZoneId.of("UTC");
    }
    Optional<ZoneId> zone = TimeZones.parse(text);
    if (zone.isEmpty()) {
      f.error("timezone", "must be an IANA time zone id such as Europe/Paris or UTC");
      return null;
    }
    return zone.get();
  }

  private static DstPolicy dst(Fields f, Violations violations) {
    JsonNode value = f.get("dst");
    if (value == null) {
      return DstPolicy.DEFAULT;
    }
    if (!(value instanceof ObjectNode object)) {
      f.error("dst", "must be an object such as {\"gap\":\"shift\",\"overlap\":\"first\"}");
      return null;
    }
    Fields d = new Fields(object, f.path("dst") + ".", violations);
    d.rejectUnknown(DST_FIELDS);
    DstPolicy.Gap gap = choice(d, "gap", DstPolicy.Gap.class, DstPolicy.DEFAULT.gap());
    DstPolicy.Overlap overlap =
        choice(d, "overlap", DstPolicy.Overlap.class, DstPolicy.DEFAULT.overlap());
    return gap == null || overlap == null ? null : new DstPolicy(gap, overlap);
  }

  /** One of an enum's wire names ({@code fire_once}), or its default when absent. */
  private static <E extends Enum<E>> E choice(Fields f, String name, Class<E> type, E fallback) {
    JsonNode value = f.get(name);
    if (value == null) {
      return fallback;
    }
    Optional<E> parsed =
        value.isTextual() ? WireNames.parse(type, value.textValue()) : Optional.empty();
    if (parsed.isEmpty()) {
      f.error(name, "must be one of " + WireNames.list(type));
      return null;
    }
    return parsed.get();
  }

  private JobTemplate job(Fields f) {
    int before = f.errorCount();
    String type = jobFields.type(f);
    JsonNode payload = jobFields.payload(f);
    Priority priority = jobFields.priority(f);
    int maxAttempts = jobFields.maxAttempts(f);
    Backoff backoff = jobFields.backoff(f);
    Duration timeout = jobFields.timeout(f);
    List<String> tags = jobFields.tags(f);
    ObjectNode callback = jobFields.callback(f);
    if (f.errorCount() > before) {
      return null;
    }
    return new JobTemplate(type, payload, priority, maxAttempts, backoff, timeout, tags, callback);
  }
}
