package io.punctual.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A job to submit. Only {@code type} is required; the server fills in the rest. Build with {@link
 * #builder(String)}. In a workflow ({@link WorkflowRequest}) each job has a {@code ref}, and may
 * name its parent and dependencies by ref.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JobRequest(
    String type,
    Object payload,
    Instant runAt,
    Duration delay,
    JobPriority priority,
    Integer maxAttempts,
    BackoffPolicy backoff,
    Duration timeout,
    String idempotencyKey,
    List<String> tags,
    Callback callback,
    String ref,
    String parent,
    String parentId,
    RunCondition runCondition,
    List<Dependency> dependsOn) {

  public static Builder builder(String type) {
    return new Builder(type);
  }

  /** Fluent builder; every setter is optional. */
  public static final class Builder {
    private final String type;
    private Object payload;
    private Instant runAt;
    private Duration delay;
    private JobPriority priority;
    private Integer maxAttempts;
    private BackoffPolicy backoff;
    private Duration timeout;
    private String idempotencyKey;
    private List<String> tags;
    private Callback callback;
    private String ref;
    private String parent;
    private String parentId;
    private RunCondition runCondition;
    private List<Dependency> dependsOn;

    private Builder(String type) {
      this.type = Objects.requireNonNull(type, "type");
    }

    /** Any value Jackson can write: a {@link JsonNode}, a {@link Map}, a record... */
    public Builder payload(Object payload) {
      this.payload = payload;
      return this;
    }

    /** Run at this time (exclusive with {@link #delay}). */
    public Builder runAt(Instant runAt) {
      this.runAt = runAt;
      return this;
    }

    /** Run this long after the server receives the request (exclusive with {@link #runAt}). */
    public Builder delay(Duration delay) {
      this.delay = delay;
      return this;
    }

    public Builder priority(JobPriority priority) {
      this.priority = priority;
      return this;
    }

    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
      return this;
    }

    public Builder backoff(BackoffPolicy backoff) {
      this.backoff = backoff;
      return this;
    }

    /** A backoff as a raw map, e.g. {@code Map.of("strategy","fixed","delay","PT30S")}. */
    public Builder backoff(Map<String, Object> backoff) {
      this.backoff = backoff == null ? null : new BackoffPolicy(backoff);
      return this;
    }

    public Builder timeout(Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    /** Resubmitting with the same key and body returns the existing job. */
    public Builder idempotencyKey(String idempotencyKey) {
      this.idempotencyKey = idempotencyKey;
      return this;
    }

    public Builder tags(String... tags) {
      this.tags = List.of(tags);
      return this;
    }

    public Builder tags(List<String> tags) {
      this.tags = tags == null ? null : List.copyOf(tags);
      return this;
    }

    public Builder callback(Callback callback) {
      this.callback = callback;
      return this;
    }

    /** The job's name within its workflow (workflows only). */
    public Builder ref(String ref) {
      this.ref = ref;
      return this;
    }

    /** Run after the step {@code ref} of the same workflow, if {@code condition} holds. */
    public Builder parent(String ref, RunCondition condition) {
      this.parent = ref;
      this.runCondition = condition;
      return this;
    }

    /** Run after the stored job {@code jobId}, if {@code condition} holds. */
    public Builder parentId(String jobId, RunCondition condition) {
      this.parentId = jobId;
      this.runCondition = condition;
      return this;
    }

    /** Run only after these jobs have ended (see {@link Dependency}). */
    public Builder dependsOn(Dependency... dependencies) {
      this.dependsOn = List.of(dependencies);
      return this;
    }

    public Builder dependsOn(List<Dependency> dependencies) {
      this.dependsOn = List.copyOf(dependencies);
      return this;
    }

    public JobRequest build() {
      return new JobRequest(
          type,
          payload,
          runAt,
          delay,
          priority,
          maxAttempts,
          backoff,
          timeout,
          idempotencyKey,
          tags,
          callback,
          ref,
          parent,
          parentId,
          runCondition,
          dependsOn);
    }
  }
}
