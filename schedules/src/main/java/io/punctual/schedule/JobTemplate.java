package io.punctual.schedule;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.model.Backoff;
import io.punctual.model.JobLinks;
import io.punctual.model.NewJob;
import io.punctual.model.Priority;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/** The job each occurrence of a schedule becomes: the fields of {@code POST /jobs}, validated. */
public record JobTemplate(
    String type,
    JsonNode payload,
    Priority priority,
    int maxAttempts,
    Backoff backoff,
    Duration timeout,
    List<String> tags,
    JsonNode callback) {

  public JobTemplate {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(priority, "priority");
    Objects.requireNonNull(backoff, "backoff");
    tags = tags == null ? List.of() : List.copyOf(tags);
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be >= 1");
    }
  }

  /** The job in {@code namespace}, due at {@code runAt}, belonging to what {@code links} says. */
  public NewJob toNewJob(String namespace, Instant runAt, JobLinks links) {
    return NewJob.builder(namespace, type, runAt)
        .payload(payload)
        .priority(priority)
        .maxAttempts(maxAttempts)
        .backoff(backoff)
        .timeout(timeout)
        .tags(tags)
        .callback(callback)
        .links(links)
        .build();
  }
}
