package io.punctual.requests;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.common.json.Json;
import io.punctual.model.Backoff;
import io.punctual.model.Priority;
import io.punctual.outbound.address.OutboundPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The fields that describe a job to run, with the same values, limits and defaults wherever a job
 * is described: {@code POST /jobs}, a workflow's steps, a schedule's job (through the API or
 * declared in configuration). Each getter records its errors under the field's path.
 */
public final class JobFields {
  public static final int MAX_TYPE_LENGTH = 200;
  static final int MAX_TAGS = 100;
  static final int MAX_TAG_LENGTH = 200;

  /**
   * The limits and defaults of job fields (the API's settings: {@code api.maxPayloadBytes}, {@code
   * api.defaultPriority}, {@code api.defaultMaxAttempts}, {@code api.maxMaxAttempts}, {@code
   * api.defaultBackoff}), and what a {@code callback.url} may name ({@code worker.http.allow}).
   */
  public record Rules(
      int maxPayloadBytes,
      Priority defaultPriority,
      int defaultMaxAttempts,
      int maxMaxAttempts,
      Backoff defaultBackoff,
      OutboundPolicy callbackPolicy) {

    /** The rules with the default callback policy (no address opened). */
    public Rules(
        int maxPayloadBytes,
        Priority defaultPriority,
        int defaultMaxAttempts,
        int maxMaxAttempts,
        Backoff defaultBackoff) {
      this(
          maxPayloadBytes,
          defaultPriority,
          defaultMaxAttempts,
          maxMaxAttempts,
          defaultBackoff,
          OutboundPolicy.DEFAULT);
    }
  }

  private final Rules rules;

  public JobFields(Rules rules) {
    this.rules = rules;
  }

  /** Keeps {@code now + delay} inside the range of job ids (year 10889) for ages to come. */
  public static final Duration MAX_DELAY = Duration.ofDays(365L * 1000);

  /** When a job is due: at {@code runAt}, or {@code delay} after it is stored; neither: now. */
  public record Due(Instant runAt, Duration delay) {}

  /** {@code runAt} or {@code delay} (at most {@link #MAX_DELAY}), not both. */
  public Due due(Fields f) {
    Instant runAt = f.instant("runAt");
    Duration delay = f.duration("delay", false);
    if (delay != null && delay.compareTo(MAX_DELAY) > 0) {
      f.error("delay", "must be at most " + MAX_DELAY);
    }
    if (f.has("runAt") && f.has("delay")) {
      f.error("delay", "give either runAt or delay, not both");
    }
    return new Due(runAt, delay);
  }

  /** {@code type}: required. */
  public String type(Fields f) {
    return f.string("type", true, MAX_TYPE_LENGTH);
  }

  /**
   * {@code payload} (default {}), at most {@code maxPayloadBytes}.
   *
   * @throws FieldTooLargeException beyond (the API answers 413)
   */
  public JsonNode payload(Fields f) {
    JsonNode payload = f.get("payload");
    if (payload == null) {
      return JsonNodeFactory.instance.objectNode();
    }
    int size;
    try {
      size = Json.mapper().writeValueAsBytes(payload).length;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot measure payload", e);
    }
    if (size > rules.maxPayloadBytes()) {
      throw new FieldTooLargeException(
          f.path("payload"),
          "The payload is " + size + " bytes; at most " + rules.maxPayloadBytes() + " allowed.");
    }
    return payload;
  }

  /** {@code priority}, default {@code defaultPriority}. */
  public Priority priority(Fields f) {
    if (!f.has("priority")) {
      return rules.defaultPriority();
    }
    JsonNode value = f.get("priority");
    Priority priority = value.isTextual() ? Priority.parse(value.textValue()).orElse(null) : null;
    if (priority == null) {
      f.error("priority", "must be one of critical, high, normal, low");
    }
    return priority;
  }

  /**
   * {@code maxAttempts} between 1 and {@code maxMaxAttempts}, default {@code defaultMaxAttempts}.
   */
  public int maxAttempts(Fields f) {
    Integer maxAttempts = f.integer("maxAttempts", 1, rules.maxMaxAttempts());
    return maxAttempts == null ? rules.defaultMaxAttempts() : maxAttempts;
  }

  /** {@code backoff} (see {@link BackoffParser}), default {@code defaultBackoff}. */
  public Backoff backoff(Fields f) {
    return f.has("backoff")
        ? BackoffParser.parse(f.get("backoff"), f.path("backoff"), f.violations())
        : rules.defaultBackoff();
  }

  /** {@code timeout}: an ISO-8601 duration above zero, or none. */
  public Duration timeout(Fields f) {
    return f.duration("timeout", true);
  }

  /**
   * {@code callback} (see {@link CallbackParser}), or none. A URL that spells an address the
   * callback policy refuses is an error of {@code callback.url}.
   */
  public ObjectNode callback(Fields f) {
    return f.has("callback")
        ? CallbackParser.parse(
            f.get("callback"), f.path("callback"), f.violations(), rules.callbackPolicy())
        : null;
  }

  /** {@code tags}: at most 100 non-blank strings of at most 200 characters. */
  public List<String> tags(Fields f) {
    JsonNode value = f.get("tags");
    if (value == null) {
      return List.of();
    }
    if (!value.isArray()) {
      f.error("tags", "must be an array of strings");
      return List.of();
    }
    if (value.size() > MAX_TAGS) {
      f.error("tags", "must have at most " + MAX_TAGS + " entries");
      return List.of();
    }
    List<String> tags = new ArrayList<>(value.size());
    for (int i = 0; i < value.size(); i++) {
      JsonNode tag = value.get(i);
      if (!tag.isTextual() || tag.textValue().isBlank()) {
        f.error("tags[" + i + "]", "must be a non-blank string");
      } else if (tag.textValue().length() > MAX_TAG_LENGTH) {
        f.error("tags[" + i + "]", "must be at most " + MAX_TAG_LENGTH + " characters");
      } else {
        tags.add(tag.textValue());
      }
    }
    return tags;
  }
}
