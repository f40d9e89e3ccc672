package io.punctual.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A schedule to create or to replace a schedule with: a name, when it fires ({@code cron} or {@code
 * every}, exactly one) and the job each occurrence becomes. Build with {@link #cron} or {@link
 * #every}; everything else is optional and takes the server's defaults.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ScheduleRequest(
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
    Object payload,
    JobPriority priority,
    Integer maxAttempts,
    BackoffPolicy backoff,
    Duration timeout,
    List<String> tags,
    Callback callback) {

  /** A schedule firing at the times of a cron expression (Unix 5 fields or Quartz 6-7). */
  public static Builder cron(String name, String cron, String type) {
    return new Builder(name, type).cron(cron);
  }

  /** A schedule firing every {@code every} of absolute time. */
  public static Builder every(String name, Duration every, String type) {
    return new Builder(name, type).every(every);
  }

  /** Fluent builder. */
  public static final class Builder {
    private final String name;
    private final String type;
    private String initIdentifier;
    private String cron;
    private Duration every;
    private String timezone;
    private DstPolicy dst;
    private MisfirePolicy misfire;
    private OverlapPolicy overlap;
    private Instant startAt;
    private Instant endAt;
    private Object payload;
    private JobPriority priority;
    private Integer maxAttempts;
    private BackoffPolicy backoff;
    private Duration timeout;
    private List<String> tags;
    private Callback callback;

    private Builder(String name, String type) {
      this.name = Objects.requireNonNull(name, "name");
      this.type = Objects.requireNonNull(type, "type");
    }

    public Builder cron(String value) {
      this.cron = value;
      this.every = null;
      return this;
    }

    public Builder every(Duration value) {
      this.every = value;
      this.cron = null;
      return this;
    }

    /**
     * Static registration: creating a schedule with a key already registered in the namespace
     * returns (and, if the body differs, updates) that schedule instead of a second one.
     */
    public Builder initIdentifier(String value) {
      this.initIdentifier = value;
      return this;
    }

    /** An IANA time zone id ({@code Europe/Paris}); the server's default is UTC. */
    public Builder timezone(String value) {
      this.timezone = value;
      return this;
    }

    public Builder dst(DstPolicy value) {
      this.dst = value;
      return this;
    }

    public Builder misfire(MisfirePolicy value) {
      this.misfire = value;
      return this;
    }

    public Builder overlap(OverlapPolicy value) {
      this.overlap = value;
      return this;
    }

    public Builder startAt(Instant value) {
      this.startAt = value;
      return this;
    }

    public Builder endAt(Instant value) {
      this.endAt = value;
      return this;
    }

    /** Any value Jackson can write: a {@link JsonNode}, a {@link Map}, a record... */
    public Builder payload(Object value) {
      this.payload = value;
      return this;
    }

    public Builder priority(JobPriority value) {
      this.priority = value;
      return this;
    }

    public Builder maxAttempts(int value) {
      this.maxAttempts = value;
      return this;
    }

    public Builder backoff(BackoffPolicy value) {
      this.backoff = value;
      return this;
    }

    public Builder timeout(Duration value) {
      this.timeout = value;
      return this;
    }

    public Builder tags(String... values) {
      this.tags = List.of(values);
      return this;
    }

    public Builder callback(Callback value) {
      this.callback = value;
      return this;
    }

    public ScheduleRequest build() {
      return new ScheduleRequest(
          name,
          initIdentifier,
          cron,
          every,
          timezone,
          dst,
          misfire,
          overlap,
          startAt,
          endAt,
          type,
          payload,
          priority,
          maxAttempts,
          backoff,
          timeout,
          tags,
          callback);
    }
  }
}
