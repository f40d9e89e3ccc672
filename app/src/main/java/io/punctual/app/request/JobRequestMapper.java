package io.punctual.app.request;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.client.JobRequest;
import io.punctual.common.json.Json;
import io.punctual.model.Backoff;
import io.punctual.model.NewJob;
import io.punctual.model.Priority;
import io.punctual.model.RequestHash;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;

/**
 * A client's {@link JobRequest} as the store's {@link NewJob}, validated and filled in as the API
 * does for {@code POST /jobs}: the same limits, the same defaults ({@link JobDefaults}), and, for a
 * request with an idempotency key, the same request hash, so that a request repeated in a
 * transaction or over REST is one job.
 *
 * <p>Not taken yet (refused, naming the field): {@code callback}, and what makes a job wait for
 * another ({@code parentId}, {@code dependsOn}) or a workflow step ({@code ref}, {@code parent}).
 * Submit those over REST for now.
 */
public final class JobRequestMapper {
  static final int MAX_TYPE_LENGTH = 200;
  static final int MAX_KEY_LENGTH = 200;
  static final int MAX_TAGS = 100;
  static final int MAX_TAG_LENGTH = 200;
  static final Duration MAX_DURATION = Duration.ofDays(365L * 1000);
  static final Instant LATEST = Instant.parse("4000-01-01T00:00:00Z");

  private final JobDefaults defaults;

  public JobRequestMapper(JobDefaults defaults) {
    this.defaults = Objects.requireNonNull(defaults, "defaults");
  }

  /**
   * The job to store in {@code namespace}, due at its {@code runAt} or {@code now + delay}. {@code
   * prefix} names the request in errors ({@code ""}, {@code "jobs[3]."}).
   *
   * @throws InvalidJobRequestException naming the first field the API would refuse
   */
  public NewJob toNewJob(JobRequest request, String namespace, Instant now, String prefix) {
    Objects.requireNonNull(request, "request");
    refuseUnsupported(request, prefix);
    String type = text(request.type(), prefix + "type", MAX_TYPE_LENGTH, true);
    JsonNode payload = payload(request.payload(), prefix + "payload");
    Instant runAt = request.runAt();
    Duration delay = request.delay();
    if (runAt != null && delay != null) {
      throw new InvalidJobRequestException(
          prefix + "delay", "give either runAt or delay, not both");
    }
    if (runAt != null && (runAt.isBefore(Instant.EPOCH) || runAt.isAfter(LATEST))) {
      throw new InvalidJobRequestException(prefix + "runAt", "must be between 1970 and " + LATEST);
    }
    if (delay != null && (delay.isNegative() || delay.compareTo(MAX_DURATION) > 0)) {
      throw new InvalidJobRequestException(prefix + "delay", "must be between PT0S and P365000D");
    }
    Priority priority =
        request.priority() == null
            ? defaults.priority()
            : Priority.parse(request.priority().wireName()).orElseThrow();
    int maxAttempts =
        request.maxAttempts() == null ? defaults.maxAttempts() : request.maxAttempts();
    if (maxAttempts < 1 || maxAttempts > defaults.maxMaxAttempts()) {
      throw new InvalidJobRequestException(
          prefix + "maxAttempts", "must be between 1 and " + defaults.maxMaxAttempts());
    }
    Backoff backoff =
        request.backoff() == null
            ? defaults.backoff()
            : BackoffMapping.toBackoff(request.backoff(), prefix + "backoff");
    Duration timeout = request.timeout();
    if (timeout != null && (!timeout.isPositive() || timeout.compareTo(MAX_DURATION) > 0)) {
      throw new InvalidJobRequestException(
          prefix + "timeout", "must be greater than zero and at most P365000D");
    }
    String key = text(request.idempotencyKey(), prefix + "idempotencyKey", MAX_KEY_LENGTH, false);
    List<String> tags = tags(request.tags(), prefix);
    Instant due = runAt != null ? runAt : now.plus(delay == null ? Duration.ZERO : delay);
    String hash = null;
    if (key != null) {
      hash =
          RequestHash.sha256(
              canonical(type, payload, runAt, delay, priority, maxAttempts, backoff, timeout, key)
                  .set("tags", array(tags)));
    }
    return NewJob.builder(namespace, type, due)
        .payload(payload)
        .priority(priority)
        .maxAttempts(maxAttempts)
        .backoff(backoff)
        .timeout(timeout)
        .idempotencyKey(key, hash)
        .tags(tags)
        .build();
  }

  private static void refuseUnsupported(JobRequest r, String prefix) {
    unsupported(r.callback() != null, prefix + "callback");
    unsupported(r.parentId() != null || r.runCondition() != null, prefix + "parentId");
    unsupported(r.dependsOn() != null && !r.dependsOn().isEmpty(), prefix + "dependsOn");
    unsupported(r.ref() != null || r.parent() != null, prefix + "ref");
  }

  private static void unsupported(boolean given, String field) {
    if (given) {
      throw new InvalidJobRequestException(
          field, "is not taken by a submit in the caller's transaction yet; submit over REST");
    }
  }

  /**
   * The request in the API's canonical shape ({@code ValidatedJob.canonical()} in the API): every
   * field present with defaults applied, times and durations normalised.
   */
  private static ObjectNode canonical(
      String type,
      JsonNode payload,
      Instant runAt,
      Duration delay,
      Priority priority,
      int maxAttempts,
      Backoff backoff,
      Duration timeout,
      String key) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("type", type);
    node.set("payload", payload);
    node.put("runAt", runAt == null ? null : runAt.toString());
    node.put("delay", delay == null ? null : delay.toString());
    node.put("priority", priority.wireName());
    node.put("maxAttempts", maxAttempts);
    node.set("backoff", Json.mapper().valueToTree(backoff));
    node.put("timeout", timeout == null ? null : timeout.toString());
    node.put("idempotencyKey", key);
    node.set("callback", JsonNodeFactory.instance.nullNode());
    return node;
  }

  private static ArrayNode array(List<String> values) {
    ArrayNode out = JsonNodeFactory.instance.arrayNode();
    values.forEach(out::add);
    return out;
  }

  /**
   * The payload as the API receives it: written as JSON and read back (so numbers and times are the
   * nodes a REST body gives), {} when there is none, at most {@code maxPayloadBytes}.
   */
  private JsonNode payload(Object payload, String field) {
    if (payload == null) {
      return JsonNodeFactory.instance.objectNode();
    }
    byte[] bytes;
    JsonNode node;
    try {
      bytes = Json.mapper().writeValueAsBytes(payload);
      node = Json.mapper().readTree(bytes);
    } catch (JsonProcessingException e) {
      throw new InvalidJobRequestException(field, "cannot be written as JSON: " + e.getMessage());
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot read back the payload", e);
    }
    if (bytes.length > defaults.maxPayloadBytes()) {
      throw new InvalidJobRequestException(
          field,
          "is " + bytes.length + " bytes; at most " + defaults.maxPayloadBytes() + " allowed");
    }
    requireStorable(node, field);
    return node;
  }

  private static List<String> tags(List<String> tags, String prefix) {
    if (tags == null) {
      return List.of();
    }
    if (tags.size() > MAX_TAGS) {
      throw new InvalidJobRequestException(
          prefix + "tags", "must have at most " + MAX_TAGS + " entries");
    }
    for (int i = 0; i < tags.size(); i++) {
      text(tags.get(i), prefix + "tags[" + i + "]", MAX_TAG_LENGTH, true);
    }
    return List.copyOf(tags);
  }

  /** A string field: non-blank when {@code required} (or given), at most {@code max} chars. */
  private static String text(String value, String field, int max, boolean required) {
    if (value == null) {
      if (required) {
        throw new InvalidJobRequestException(field, "is required");
      }
      return null;
    }
    if (value.isBlank()) {
      throw new InvalidJobRequestException(field, "must not be blank");
    }
    if (value.length() > max) {
      throw new InvalidJobRequestException(field, "must be at most " + max + " characters");
    }
    requireStorable(value, field);
    return value;
  }

  /** No NUL, which PostgreSQL cannot store in text or jsonb (the API refuses it too). */
  private static void requireStorable(String text, String field) {
    if (text.indexOf('\u0000') >= 0) {
      throw new InvalidJobRequestException(field, "must not contain NUL characters");
    }
  }

  private static void requireStorable(JsonNode node, String field) {
    if (node.isTextual()) {
      requireStorable(node.textValue(), field);
    } else if (node.isObject()) {
      for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        requireStorable(name, field);
        requireStorable(node.get(name), field);
      }
    } else if (node.isArray()) {
      node.forEach(element -> requireStorable(element, field));
    }
  }
}
