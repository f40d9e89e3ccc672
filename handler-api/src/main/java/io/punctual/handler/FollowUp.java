package io.punctual.handler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.punctual.model.Backoff;
import io.punctual.model.JobLinks;
import io.punctual.model.NewJob;
import io.punctual.model.Priority;
import io.punctual.model.RunCondition;
import io.punctual.model.Upstream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * A job a handler asks for through {@link JobContext#spawn}: stored in the same transaction that
 * records the attempt's success, as a child of the job that spawned it (its {@code parentId}), in
 * the same namespace; not stored at all if the attempt does not succeed or its result is refused.
 * Left-out fields take the defaults of a submitted job (priority: the spawning job's).
 */
public final class FollowUp {
  private final String type;
  private JsonNode payload = JsonNodeFactory.instance.objectNode();
  private Duration delay = Duration.ZERO;
  private Instant runAt;
  private Priority priority;
  private int maxAttempts = 3;
  private Backoff backoff = Backoff.DEFAULT;
  private Duration timeout;
  private String idempotencyKey;
  private final List<String> tags = new ArrayList<>();
  private final List<Upstream> after = new ArrayList<>();

  private FollowUp(String type) {
    this.type = Objects.requireNonNull(type, "type");
  }

  public static FollowUp of(String type) {
    return new FollowUp(type);
  }

  public FollowUp payload(JsonNode value) {
    payload = Objects.requireNonNull(value, "payload");
    return this;
  }

  public FollowUp delay(Duration value) {
    delay = Objects.requireNonNull(value, "delay");
    runAt = null;
    return this;
  }

  public FollowUp runAt(Instant value) {
    runAt = Objects.requireNonNull(value, "runAt");
    return this;
  }

  public FollowUp priority(Priority value) {
    priority = value;
    return this;
  }

  public FollowUp maxAttempts(int value) {
    if (value < 1) {
      throw new IllegalArgumentException("maxAttempts must be >= 1");
    }
    maxAttempts = value;
    return this;
  }

  public FollowUp backoff(Backoff value) {
    backoff = Objects.requireNonNull(value, "backoff");
    return this;
  }

  public FollowUp timeout(Duration value) {
    timeout = value;
    return this;
  }

  public FollowUp idempotencyKey(String value) {
    idempotencyKey = value;
    return this;
  }

  public FollowUp tags(String... values) {
    tags.addAll(List.of(values));
    return this;
  }

  /**
   * Run only after the follow-up {@code spawnIndex} (what an earlier {@link JobContext#spawn}
   * returned) of the same attempt ends, on {@code condition}. {@link JobContext#spawn} refuses an
   * index that no earlier follow-up has ({@link InvalidFollowUpException}).
   */
  public FollowUp after(int spawnIndex, RunCondition condition) {
    if (spawnIndex < 0) {
      throw new InvalidFollowUpException(
          "after(" + spawnIndex + "): an index that JobContext.spawn returned is >= 0");
    }
    after.add(Upstream.inBatch(spawnIndex, Objects.requireNonNull(condition, "condition")));
    return this;
  }

  /**
   * Run only after the stored job {@code jobId} (same namespace) ends, on {@code condition}. A job
   * that does not exist in the namespace is found out only when the attempt's success is recorded:
   * then the attempt is recorded as failed instead, with the reason, and nothing it spawned is
   * stored.
   */
  public FollowUp after(UUID jobId, RunCondition condition) {
    after.add(
        Upstream.stored(
            Objects.requireNonNull(jobId, "jobId"),
            Objects.requireNonNull(condition, "condition")));
    return this;
  }

  NewJob toNewJob(String namespace, Priority spawnerPriority, Instant now) {
    return NewJob.builder(namespace, type, runAt != null ? runAt : now.plus(delay))
        .payload(payload)
        .priority(priority != null ? priority : spawnerPriority)
        .maxAttempts(maxAttempts)
        .backoff(backoff)
        .timeout(timeout)
        .idempotencyKey(idempotencyKey, idempotencyKey == null ? null : "spawned:" + idempotencyKey)
        .tags(tags)
        .links(JobLinks.NONE.withUpstream(after))
        .build();
  }
}
