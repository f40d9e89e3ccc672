package io.punctual.store.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.punctual.model.Backoff;
import io.punctual.model.JobLinks;
import io.punctual.model.NewJob;
import io.punctual.model.Priority;
import io.punctual.model.Upstream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** Fixture builder: {@code Jobs.aJob().type("noop").runAt(t).build()}. */
public final class Jobs {
  private String namespace = NewJob.DEFAULT_NAMESPACE;
  private String type = "noop";
  private JsonNode payload = JsonNodeFactory.instance.objectNode();
  private Instant runAt = Instant.now();
  private Priority priority = Priority.NORMAL;
  private int maxAttempts = 3;
  private Backoff backoff = new Backoff.Fixed(Duration.ofMillis(10));
  private Duration timeout;
  private String idempotencyKey;
  private String requestHash = "h";
  private List<String> tags = List.of();
  private JsonNode callback;
  private JobLinks links = JobLinks.NONE;

  public static Jobs aJob() {
    return new Jobs();
  }

  public Jobs namespace(String v) {
    namespace = v;
    return this;
  }

  public Jobs type(String v) {
    type = v;
    return this;
  }

  public Jobs payload(JsonNode v) {
    payload = v;
    return this;
  }

  public Jobs runAt(Instant v) {
    runAt = v;
    return this;
  }

  public Jobs priority(Priority v) {
    priority = v;
    return this;
  }

  public Jobs maxAttempts(int v) {
    maxAttempts = v;
    return this;
  }

  public Jobs backoff(Backoff v) {
    backoff = v;
    return this;
  }

  public Jobs timeout(Duration v) {
    timeout = v;
    return this;
  }

  public Jobs idempotencyKey(String key, String hash) {
    idempotencyKey = key;
    requestHash = hash;
    return this;
  }

  public Jobs tags(String... v) {
    tags = List.of(v);
    return this;
  }

  public Jobs callback(JsonNode v) {
    callback = v;
    return this;
  }

  /** The jobs this one waits for (its parent and dependencies). */
  public Jobs waitsFor(Upstream... upstream) {
    links = links.withUpstream(List.of(upstream));
    return this;
  }

  public Jobs links(JobLinks v) {
    links = v;
    return this;
  }

  public NewJob build() {
    return NewJob.builder(namespace, type, runAt)
        .payload(payload)
        .priority(priority)
        .maxAttempts(maxAttempts)
        .backoff(backoff)
        .timeout(timeout)
        .idempotencyKey(idempotencyKey, requestHash)
        .tags(tags)
        .callback(callback)
        .links(links)
        .build();
  }
}
