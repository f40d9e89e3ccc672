package io.punctual.requests.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.common.json.Json;
import io.punctual.model.Backoff;
import io.punctual.model.JobLinks;
import io.punctual.model.NewJob;
import io.punctual.model.Priority;
import io.punctual.model.RequestHash;
import io.punctual.model.Upstream;
import io.punctual.requests.FieldError;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One job of a request after validation, defaults applied. Either {@code runAt} or {@code delay}
 * (or neither: run now) is set; the delay is resolved against the clock only when stored.
 */
public record ValidatedJob(
    String type,
    JsonNode payload,
    Instant runAt,
    Duration delay,
    Priority priority,
    int maxAttempts,
    Backoff backoff,
    Duration timeout,
    String idempotencyKey,
    List<String> tags,
    ObjectNode callback,
    LinksParser.Links links,
    String concurrencyKey,
    String traceparent) {

  /**
   * This job carrying the request's W3C {@code traceparent} header (null or invalid: none). Not
   * part of the request's canonical form: a retry from another trace is the same request.
   */
  public ValidatedJob withTraceparent(String header) {
    return new ValidatedJob(
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
        links,
        concurrencyKey,
        header);
  }

  /** The job to store in {@code namespace}, due at {@code runAt} or {@code now + delay}. */
  public NewJob toNewJob(String namespace, Instant now) {
    return toNewJob(namespace, now, Map.of());
  }

  /**
   * As {@link #toNewJob(String, Instant)}, with the workflow steps it names by ref resolved through
   * {@code refs} (step positions).
   */
  public NewJob toNewJob(String namespace, Instant now, Map<String, Integer> refs) {
    Instant due = runAt != null ? runAt : now.plus(delay == null ? Duration.ZERO : delay);
    String requestHash = idempotencyKey == null ? null : RequestHash.sha256(canonical());
    return NewJob.builder(namespace, type, due)
        .payload(payload)
        .priority(priority)
        .maxAttempts(maxAttempts)
        .backoff(backoff)
        .timeout(timeout)
        .idempotencyKey(idempotencyKey, requestHash)
        .tags(tags)
        .callback(callback)
        .links(
            links.parent() == null && links.dependsOn().isEmpty()
                ? JobLinks.NONE
                : JobLinks.NONE.withUpstream(links.upstream(refs)))
        .concurrencyKey(concurrencyKey)
        .traceparent(traceparent)
        .build();
  }

  /**
   * The refusal of this job when the store finds no job {@code id} in the namespace for it to wait
   * for: named by the field that names that job ({@code parentId} or a {@code dependsOn} entry,
   * with the request's prefix).
   */
  public FieldError unknownUpstream(java.util.UUID id) {
    String field = null;
    if (links.parent() != null && id.equals(links.parent().id())) {
      field = links.parentPath();
    }
    for (LinksParser.Dependency d : links.dependsOn()) {
      if (field == null && id.equals(d.target().id())) {
        field = d.path();
      }
    }
    return new FieldError(field, "no job " + id + " in this namespace to wait for");
  }

  /**
   * What the job waits for besides its parent (its {@code dependsOn}), as stored: jobs named by id
   * (a single or batch submission names no workflow step by ref).
   */
  public List<Upstream> dependsOn() {
    if (links.dependsOn().isEmpty()) {
      return List.of(); // most jobs: no lists or stream to build per answer
    }
    return links.upstream(Map.of()).stream().filter(u -> !u.parent()).toList();
  }

  /**
   * The request in one canonical shape: every field present with defaults applied, times and
   * durations normalised. Two requests meaning the same job have the same canonical form.
   */
  public ObjectNode canonical() {
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode node = f.objectNode();
    node.put("type", type);
    node.set("payload", payload);
    node.put("runAt", runAt == null ? null : runAt.toString());
    node.put("delay", delay == null ? null : delay.toString());
    node.put("priority", priority.wireName());
    node.put("maxAttempts", maxAttempts);
    node.set("backoff", Json.mapper().valueToTree(backoff));
    node.put("timeout", timeout == null ? null : timeout.toString());
    node.put("idempotencyKey", idempotencyKey);
    if (concurrencyKey != null) {
      // Only when given: the canonical form (and hash) of every request without one is unchanged.
      node.put("concurrencyKey", concurrencyKey);
    }
    ArrayNode tagArray = node.putArray("tags");
    tags.forEach(tagArray::add);
    node.set("callback", callback);
    if (!links.isEmpty()) {
      ObjectNode waits = node.putObject("waitsFor");
      if (links.parent() != null) {
        waits.put("parent", links.parent().describe());
        waits.put("runCondition", links.runCondition().wireName());
      }
      ArrayNode deps = waits.putArray("dependsOn");
      for (LinksParser.Dependency d : links.dependsOn()) {
        deps.addObject().put("target", d.target().describe()).put("required", d.required());
      }
    }
    return node;
  }
}
